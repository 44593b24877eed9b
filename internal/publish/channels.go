package publish

import (
	"net/http"
	"net/url"
	"time"
)

// channel is one kind of chat channel (webhook) finops posts to, with
// every fact about it in one entry: adding a platform is an entry here and
// the file that builds its message (TestChannelRegistryFacts refuses an
// entry that lacks a fact).
type channel struct {
	kind string // the config's kind: "feishu"
	// doc is where its setup is documented: "docs/WATCH.md#slack".
	doc string
	// signs: the platform signs with Webhook.Secret; a secret set for a
	// kind that does not sign is refused.
	signs bool
	// statusOnly: a 2xx answer means delivered, whatever its body (Slack's
	// "ok" is still checked by reply); the Chinese platforms answer 200 for
	// refusals too and put the outcome in a JSON body.
	statusOnly bool
	// body builds the request body, signing it (in header or u's query)
	// when secret is set.
	body func(a Alert, secret string, now time.Time, u *url.URL, header http.Header) ([]byte, error)
	// reply reads a 2xx answer's body; nil reads the platforms' JSON result
	// code (Webhook.codeReply).
	reply func(w Webhook, reply []byte) (retry bool, after time.Duration, err error)
}

// channels is the table of chat channel kinds, in the order messages list
// them; a fresh copy each call (no package state).
func channels() []channel {
	feishu := func(a Alert, secret string, now time.Time, _ *url.URL, _ http.Header) ([]byte, error) {
		return feishuBody(plainText(a), secret, now)
	}
	return []channel{
		{kind: KindFeishu, doc: "docs/WATCH.md#feishu-and-lark", signs: true, body: feishu},
		{kind: KindLark, doc: "docs/WATCH.md#feishu-and-lark", signs: true, body: feishu},
		{kind: KindDingTalk, doc: "docs/WATCH.md#dingtalk", signs: true,
			body: func(a Alert, secret string, now time.Time, u *url.URL, _ http.Header) ([]byte, error) {
				body, err := dingtalkBody(plainText(a))
				if secret != "" {
					ts, sign := dingtalkSign(secret, now)
					q := u.Query()
					q.Set("timestamp", ts)
					q.Set("sign", sign)
					u.RawQuery = q.Encode()
				}
				return body, err
			}},
		{kind: KindWeCom, doc: "docs/WATCH.md#wecom-企业微信",
			body: func(a Alert, _ string, _ time.Time, _ *url.URL, _ http.Header) ([]byte, error) {
				return wecomBody(plainText(a))
			}},
		{kind: KindSlack, doc: "docs/WATCH.md#slack", statusOnly: true,
			body: func(a Alert, _ string, _ time.Time, _ *url.URL, _ http.Header) ([]byte, error) {
				return slackBody(plainText(a))
			},
			reply: Webhook.slackReply},
		{kind: KindJSON, doc: "docs/WATCH.md#generic-json", signs: true, statusOnly: true,
			body: func(a Alert, secret string, now time.Time, _ *url.URL, header http.Header) ([]byte, error) {
				body, err := jsonBody(a, now)
				if err == nil && secret != "" {
					header.Set(jsonSignatureHeader, jsonSign(secret, body))
				}
				return body, err
			},
			reply: func(Webhook, []byte) (bool, time.Duration, error) { return false, 0, nil }},
	}
}

// channelOf finds a chat channel kind.
func channelOf(kind string) (channel, bool) {
	for _, c := range channels() {
		if c.kind == kind {
			return c, true
		}
	}
	return channel{}, false
}
