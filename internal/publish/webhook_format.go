package publish

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/sanitize"
)

// Size limits, each from the platform's page (cited where the format is
// built). Text is cut on a rune boundary, "…" marking the cut, before the
// facts line, which is always sent whole.
const (
	feishuMaxBody   = 20 << 10 // the whole request body: "请求体大小不能超过 20 KB"
	wecomMaxContent = 4096     // markdown.content, in bytes of UTF-8
	dingtalkMaxText = 4096     // the page states none for markdown; kept to WeCom's
	slackMaxHeader  = 150      // header block text, characters
	slackMaxSection = 3000     // section block text, characters
	slackMaxText    = 40000    // top-level text: Slack truncates longer messages
	jsonMaxText     = 16 << 10 // our schema's text and title (bytes), generous
	titleMaxRunes   = 120      // one line in a chat list or notification
)

// payload builds the request body and headers for the kind, signing when a
// secret is set; for DingTalk the signature goes into u's query.
func (w Webhook) payload(a Alert, now time.Time, u *url.URL) ([]byte, http.Header, error) {
	header := http.Header{"Content-Type": {"application/json; charset=utf-8"}, "User-Agent": {"finops-watch"}}
	c, ok := channelOf(w.Kind)
	if !ok {
		return nil, header, fmt.Errorf("unknown kind %q", w.Kind)
	}
	body, err := c.body(a, w.Secret, now, u, header)
	return body, header, err
}

// marshal is encoding/json without the HTML escaping of <, > and &
// (\u003c): the sizes measured are then the sizes sent, and the platforms
// display the text, they do not paste it into HTML.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// feishuBody is a rich-text ("post") message: a title and one paragraph of
// "text" elements per line. A text element is shown as written (un_escape
// is false), so no markdown or <at> tag in it is interpreted; a signed bot
// gets "timestamp" and "sign" beside msg_type.
// https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot (发送富文本消息, 请求体大小),
// the same on https://open.larksuite.com for Lark.
func feishuBody(p plain, secret string, now time.Time) ([]byte, error) {
	type element struct {
		Tag  string `json:"tag"`
		Text string `json:"text"`
	}
	type post struct {
		Title   string      `json:"title"`
		Content [][]element `json:"content"`
	}
	type message struct {
		Timestamp string `json:"timestamp,omitempty"`
		Sign      string `json:"sign,omitempty"`
		MsgType   string `json:"msg_type"`
		Content   struct {
			Post map[string]post `json:"post"`
		} `json:"content"`
	}
	var m message
	m.MsgType = "post"
	if secret != "" {
		m.Timestamp, m.Sign = feishuSign(secret, now)
	}
	render := func(body string) ([]byte, error) {
		var lines [][]element
		for _, l := range append(strings.Split(body, "\n"), p.facts) {
			if l != "" {
				lines = append(lines, []element{{Tag: "text", Text: l}})
			}
		}
		m.Content.Post = map[string]post{"zh_cn": {Title: sanitize.Truncate(p.title, titleMaxRunes), Content: lines}}
		return marshal(m)
	}
	body := fit(p.body, feishuMaxBody, func(s string) int { b, _ := render(s); return len(b) })
	return render(body)
}

// dingtalkBody is a markdown message: "title" is what the notification
// shows, "text" the message; at.isAtAll is false and nobody is listed, so
// it notifies no one by name. Untrusted text is markdown-escaped.
// https://open.dingtalk.com/document/robots/custom-robot-access,
// https://open.dingtalk.com/document/development/robot-message-type (markdown类型)
func dingtalkBody(p plain) ([]byte, error) {
	title := sanitize.Truncate(p.title, titleMaxRunes)
	text := func(body string) string { return markdownMessage(title, body, p.facts, "\n\n") }
	body := fit(p.body, dingtalkMaxText, func(s string) int { return len(text(s)) })
	type md struct {
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	type at struct {
		IsAtAll bool `json:"isAtAll"`
	}
	return marshal(struct {
		MsgType  string `json:"msgtype"`
		Markdown md     `json:"markdown"`
		At       at     `json:"at"`
	}{"markdown", md{title, text(body)}, at{false}})
}

// wecomBody is a markdown message; content is at most 4096 bytes of UTF-8.
// Mentions in it ("<@userid>") are defused and nobody is listed, so it
// notifies no one by name.
// https://developer.work.weixin.qq.com/document/path/91770 (markdown类型)
func wecomBody(p plain) ([]byte, error) {
	title := sanitize.Truncate(p.title, titleMaxRunes)
	content := func(body string) string { return markdownMessage(title, body, p.facts, "\n") }
	body := fit(p.body, wecomMaxContent, func(s string) int { return len(content(s)) })
	type md struct {
		Content string `json:"content"`
	}
	return marshal(struct {
		MsgType  string `json:"msgtype"`
		Markdown md     `json:"markdown"`
	}{"markdown", md{content(body)}})
}

// markdownMessage is the bold title, the body's lines and the facts in
// italics, every piece of alert text escaped.
func markdownMessage(title, body, facts, newline string) string {
	var b strings.Builder
	b.WriteString("**" + escapeMarkdown(title) + "**")
	for _, l := range strings.Split(body, "\n") {
		if l != "" {
			b.WriteString(newline + escapeMarkdown(l))
		}
	}
	if facts != "" {
		b.WriteString(newline + "*" + escapeMarkdown(facts) + "*")
	}
	return b.String()
}

// escapeMarkdown backslash-escapes what would format, link or quote: any
// ASCII punctuation may be escaped in CommonMark, and the characters that
// only act at the start of a line (#, >, -, +) are escaped there alone, so
// that names such as gpu-node-1.a read as written. Tags and mentions are
// already defused (defuse).
func escapeMarkdown(line string) string {
	var b strings.Builder
	start := true
	for _, r := range line {
		switch {
		case strings.ContainsRune("\\`*_[]~|", r):
			b.WriteByte('\\')
		case start && strings.ContainsRune("#>-+=", r):
			b.WriteByte('\\')
		}
		if r != ' ' && r != '\t' {
			start = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// slackBody is a message with "text" (the notification, and what clients
// without blocks show) and two blocks: a plain_text header and a plain_text
// section, so nothing in the alert is read as mrkdwn. &, < and > are
// escaped as Slack asks, which also disables <!channel>, <@U…> and <url|…>.
// https://api.slack.com/messaging/webhooks,
// https://api.slack.com/reference/surfaces/formatting#escaping,
// https://api.slack.com/reference/block-kit/blocks (header: 150, section: 3000 characters)
func slackBody(p plain) ([]byte, error) {
	title := fit(p.title, slackMaxHeader, func(s string) int { return len([]rune(escapeSlack(s))) })
	section := func(body string) string { return strings.TrimPrefix(body+"\n"+p.facts, "\n") }
	body := fit(p.body, slackMaxSection, func(s string) int { return len([]rune(escapeSlack(section(s)))) })
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type block struct {
		Type string `json:"type"`
		Text text   `json:"text"`
	}
	fallback := sanitize.Truncate(escapeSlack(title+"\n"+section(body)), slackMaxText)
	return marshal(struct {
		Text   string  `json:"text"`
		Mrkdwn bool    `json:"mrkdwn"`
		Blocks []block `json:"blocks"`
	}{fallback, false, []block{
		{"header", text{"plain_text", escapeSlack(title)}},
		{"section", text{"plain_text", escapeSlack(section(body))}},
	}})
}

var slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeSlack(s string) string { return slackEscaper.Replace(s) }

// JSONSchemaVersion is the version of the generic JSON alert (docs/WATCH.md):
// raised when a field changes meaning or goes away, not when one is added.
const JSONSchemaVersion = 1

// jsonAlert is the generic JSON schema: the Alert's fields in snake_case,
// times in RFC 3339, null for an unknown since or burnt. Text fields hold
// the bill's text with control characters replaced, neither escaped nor
// defused: the receiver decides how to show them.
type jsonAlert struct {
	SchemaVersion int        `json:"schema_version"`
	Event         string     `json:"event"`
	Title         string     `json:"title"`
	Text          string     `json:"text"`
	Resource      string     `json:"resource"`
	Team          string     `json:"team"`
	Since         *time.Time `json:"since"`
	Burnt         *string    `json:"burnt"`
	Currency      string     `json:"currency"`
	SentAt        time.Time  `json:"sent_at"`
}

func jsonBody(a Alert, now time.Time) ([]byte, error) {
	j := jsonAlert{
		SchemaVersion: JSONSchemaVersion,
		Event:         sanitize.Control(a.Event),
		Title:         fitBytes(sanitize.Control(a.Title), jsonMaxText),
		Text:          fitBytes(sanitize.Text(a.Text), jsonMaxText),
		Resource:      sanitize.Control(a.Resource),
		Team:          sanitize.Control(a.Team),
		Currency:      sanitize.Control(a.Currency),
		SentAt:        now.UTC().Truncate(time.Second),
	}
	if !a.Since.IsZero() {
		t := a.Since.Truncate(time.Second)
		j.Since = &t
	}
	if a.Burnt != "" {
		b := sanitize.Control(a.Burnt)
		j.Burnt = &b
	}
	return marshal(j)
}

// fitBytes cuts s to at most max bytes of UTF-8 on a rune boundary.
func fitBytes(s string, max int) string { return fit(s, max, func(s string) int { return len(s) }) }

// checkReply reads a 2xx answer: the Chinese platforms say 200 and put
// the outcome in the body, so a refused message (a bad signature, a missing
// keyword, a rate limit) comes back as HTTP 200 with a non-zero code.
func (w Webhook) checkReply(reply []byte) (retry bool, after time.Duration, err error) {
	if c, ok := channelOf(w.Kind); ok && c.reply != nil {
		return c.reply(w, reply)
	}
	return w.codeReply(reply)
}

// slackReply reads Slack's answer: incoming webhooks answer "ok"; their
// errors come with 4xx/5xx.
func (w Webhook) slackReply(reply []byte) (retry bool, after time.Duration, err error) {
	if s := strings.TrimSpace(string(reply)); s != "ok" {
		return false, 0, w.errorf("HTTP 200 but the reply is %s, not \"ok\"", quoteReply(reply))
	}
	return false, 0, nil
}

// codeReply reads the JSON result code of Feishu, Lark, DingTalk and WeCom.
func (w Webhook) codeReply(reply []byte) (retry bool, after time.Duration, err error) {
	var r struct {
		Code       *int   `json:"code"`       // Feishu, Lark
		StatusCode *int   `json:"StatusCode"` // Feishu's older replies
		Msg        string `json:"msg"`
		ErrCode    *int   `json:"errcode"` // DingTalk, WeCom
		ErrMsg     string `json:"errmsg"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		return false, 0, w.errorf("HTTP 200 but the reply %s is not the platform's JSON: is the URL the bot's webhook?", quoteReply(reply))
	}
	code, msg := r.ErrCode, r.ErrMsg
	if w.Kind == KindFeishu || w.Kind == KindLark {
		code, msg = r.Code, r.Msg
		if code == nil {
			code = r.StatusCode
		}
	}
	if code == nil {
		return false, 0, w.errorf("HTTP 200 but the reply %s has no result code", quoteReply(reply))
	}
	if *code == 0 {
		return false, 0, nil
	}
	hint, retry := replyHint(w.Kind, *code)
	return retry, 0, w.errorf("the platform refused the message: code %d %s%s", *code, quoteReply([]byte(msg)), hint)
}

// replyHint explains the codes an operator can act on and marks the
// platforms' rate limits as worth retrying. Codes from the pages cited at
// the formats: Feishu 19021 (signature or timestamp), 19022 (IP not
// allowed), 19024 (keyword missing), 11232 (too frequent); DingTalk 310000
// (signature, keyword or IP check), 130101 (more than 20 a minute), 300001
// (token); WeCom 45009 (rate), 93000 (invalid webhook key).
func replyHint(kind string, code int) (hint string, retry bool) {
	switch {
	case (kind == KindFeishu || kind == KindLark) && code == 11232,
		kind == KindDingTalk && code == 130101,
		kind == KindWeCom && code == 45009:
		return " (rate limited)", true
	case (kind == KindFeishu || kind == KindLark) && code == 19021:
		return ": the signature was refused: check the channel's secret_env/secret_file and this host's clock (a timestamp more than an hour off is refused)", false
	case (kind == KindFeishu || kind == KindLark) && code == 19022:
		return ": this host's address is not on the bot's IP allowlist", false
	case (kind == KindFeishu || kind == KindLark) && code == 19024:
		return ": the message lacks the bot's custom keyword: remove the keyword check or set a signing secret instead", false
	case kind == KindDingTalk && code == 310000:
		return ": the bot's security check failed (signature, keyword or IP allowlist): check the channel's secret_env/secret_file and the bot's settings", false
	case kind == KindDingTalk && code == 300001, kind == KindWeCom && code == 93000:
		return ": the token in the URL is not valid: put the bot's current URL in the channel's url_env/url_file", false
	}
	return "", false
}
