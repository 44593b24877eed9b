package publish

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// received is one request a test receiver got.
type received struct {
	at       time.Time
	path     string
	rawQuery string
	header   http.Header
	body     []byte
}

// receiver is a real HTTP server on 127.0.0.1 that records every request
// and answers each with the next reply of its script (the last one
// repeating).
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	got     []received
	replies []reply
}

type reply struct {
	status     int
	body       string
	retryAfter string
	hang       bool // answer nothing until the client gives up
}

func newReceiver(t *testing.T, replies ...reply) *receiver {
	t.Helper()
	r := &receiver{replies: replies}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.got)
		r.got = append(r.got, received{time.Now(), req.URL.Path, req.URL.RawQuery, req.Header.Clone(), body})
		rep := r.replies[min(n, len(r.replies)-1)]
		r.mu.Unlock()
		if rep.hang {
			<-req.Context().Done()
			return
		}
		if rep.retryAfter != "" {
			w.Header().Set("Retry-After", rep.retryAfter)
		}
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// The platforms' success replies, as their pages show them.
var okReply = map[string]reply{
	KindFeishu:   {status: 200, body: `{"StatusCode":0,"StatusMessage":"success","code":0,"data":{},"msg":"success"}`},
	KindLark:     {status: 200, body: `{"code":0,"data":{},"msg":"success"}`},
	KindDingTalk: {status: 200, body: `{"errcode":0,"errmsg":"ok"}`},
	KindWeCom:    {status: 200, body: `{"errcode":0,"errmsg":"ok"}`},
	KindSlack:    {status: 200, body: "ok"},
	KindJSON:     {status: 204},
}

// tokenPath is where each platform puts its token: in the path for
// Feishu, Lark and Slack, in the query for DingTalk and WeCom. The token
// is the one string no error may contain.
const token = "TOPSECRETTOKEN"

var tokenPath = map[string]string{
	KindFeishu:   "/open-apis/bot/v2/hook/" + token,
	KindLark:     "/open-apis/bot/v2/hook/" + token,
	KindDingTalk: "/robot/send?access_token=" + token,
	KindWeCom:    "/cgi-bin/webhook/send?key=" + token,
	KindSlack:    "/services/T000/B000/" + token,
	KindJSON:     "/hooks/finops?token=" + token,
}

// signedAt is the timestamp of the Feishu page's example (1599360473).
var signedAt = time.Unix(1599360473, 0)

func testHook(kind, base string) Webhook {
	return Webhook{Kind: kind, URL: base + tokenPath[kind], Now: func() time.Time { return signedAt },
		Timeout: 5 * time.Second, AttemptTimeout: 2 * time.Second, Backoff: 10 * time.Millisecond}
}

var testAlert = Alert{
	Event: "idle", Title: "gpu-node-7 idle for 45 min",
	Text:     "8 × H100 at 0% since 14:05.\nStop it or it keeps costing 98.40 USD an hour.",
	Resource: "gpu-node-7", Team: "ml-train",
	Since: time.Date(2026, 12, 1, 14, 5, 0, 0, time.FixedZone("CST", 8*3600)),
	Burnt: "73.80", Currency: "USD",
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, b)
	}
	return m
}

// get walks a decoded JSON value by object keys and array indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// TestWebhookFormats sends one alert to each kind's receiver and checks the
// request against the platform's documented format. The signatures are
// known vectors computed outside Go, with openssl:
//
//	k=$(printf '1599360473\nfeishu-test-secret' | xxd -p | tr -d '\n')
//	printf '' | openssl dgst -sha256 -mac HMAC -macopt hexkey:$k -binary | base64
//	printf '1599360473000\nSECdingtalk-test-secret' | openssl dgst -sha256 -hmac 'SECdingtalk-test-secret' -binary | base64
func TestWebhookFormats(t *testing.T) {
	const (
		feishuSecret   = "feishu-test-secret"
		feishuSig      = "7Gq8ROqhtzskcbk2fAPXpWnrRaTUDD2iIHvbmt3/cuo="
		dingtalkSecret = "SECdingtalk-test-secret"
		dingtalkSig    = "UYtm3M+bvaSUZxjHrVVmUdeNDBelWgVs0hW2iBZdpl8="
		jsonSecret     = "json-test-secret"
	)
	facts := "resource gpu-node-7 · team ml-train · since 2026-12-01 14:05 CST · burnt so far 73.80 USD"
	tests := []struct {
		kind, secret string
		check        func(t *testing.T, r received, m map[string]any)
	}{
		{KindFeishu, feishuSecret, func(t *testing.T, r received, m map[string]any) { checkFeishuPost(t, m, feishuSig, facts) }},
		{KindLark, "", func(t *testing.T, r received, m map[string]any) {
			if _, signed := m["sign"]; signed || m["msg_type"] != "post" {
				t.Errorf("unsigned lark: sign present %v, msg_type %v", signed, m["msg_type"])
			}
		}},
		{KindDingTalk, dingtalkSecret, func(t *testing.T, r received, m map[string]any) { checkDingTalkMarkdown(t, r, m, facts) }},
		{KindWeCom, "", func(t *testing.T, r received, m map[string]any) {
			want := "**gpu-node-7 idle for 45 min**\n8 × H100 at 0% since 14:05.\nStop it or it keeps costing 98.40 USD an hour.\n*" + facts + "*"
			if m["msgtype"] != "markdown" || get(m, "markdown", "content") != want {
				t.Errorf("msgtype %v content\n%v\nwant\n%v", m["msgtype"], get(m, "markdown", "content"), want)
			}
		}},
		{KindSlack, "", func(t *testing.T, r received, m map[string]any) { checkSlackBlocks(t, m, facts) }},
		{KindJSON, jsonSecret, func(t *testing.T, r received, m map[string]any) { checkJSONEvent(t, r, m, jsonSecret) }},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			rc := newReceiver(t, okReply[tt.kind])
			w := testHook(tt.kind, rc.URL)
			w.Secret = tt.secret
			if err := w.Send(context.Background(), testAlert); err != nil {
				t.Fatal(err)
			}
			got := rc.requests()
			if len(got) != 1 {
				t.Fatalf("%d requests, want 1", len(got))
			}
			r := got[0]
			if p, _, _ := strings.Cut(tokenPath[tt.kind], "?"); r.path != p {
				t.Errorf("path %q, want %q", r.path, p)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			tt.check(t, r, decode(t, r.body))
		})
	}
}

// checkFeishuPost checks a Feishu post: signed, the title, and one text
// paragraph per line of the alert.
func checkFeishuPost(t *testing.T, m map[string]any, sig, facts string) {
	t.Helper()
	if m["timestamp"] != "1599360473" || m["sign"] != sig || m["msg_type"] != "post" {
		t.Errorf("timestamp %v sign %v msg_type %v, want 1599360473 %s post", m["timestamp"], m["sign"], m["msg_type"], sig)
	}
	post := get(m, "content", "post", "zh_cn")
	if get(post, "title") != testAlert.Title {
		t.Errorf("title %v", get(post, "title"))
	}
	want := []string{"8 × H100 at 0% since 14:05.", "Stop it or it keeps costing 98.40 USD an hour.", facts}
	for i, w := range want {
		if get(post, "content", i, 0, "tag") != "text" || get(post, "content", i, 0, "text") != w {
			t.Errorf("paragraph %d: %v, want a text element %q", i, get(post, "content", i), w)
		}
	}
}

// checkDingTalkMarkdown checks a DingTalk request: the signed query and the
// markdown message.
func checkDingTalkMarkdown(t *testing.T, r received, m map[string]any, facts string) {
	t.Helper()
	// The query keeps the token and gains timestamp (ms) and the
	// URL-encoded sign: + is %2B, / is %2F, = is %3D.
	for _, p := range []string{"access_token=" + token, "timestamp=1599360473000",
		"sign=UYtm3M%2BbvaSUZxjHrVVmUdeNDBelWgVs0hW2iBZdpl8%3D"} {
		if !strings.Contains(r.rawQuery, p) {
			t.Errorf("query %q lacks %q", r.rawQuery, p)
		}
	}
	if m["msgtype"] != "markdown" || get(m, "markdown", "title") != testAlert.Title || get(m, "at", "isAtAll") != false {
		t.Errorf("msgtype %v title %v isAtAll %v", m["msgtype"], get(m, "markdown", "title"), get(m, "at", "isAtAll"))
	}
	want := "**gpu-node-7 idle for 45 min**\n\n8 × H100 at 0% since 14:05.\n\nStop it or it keeps costing 98.40 USD an hour.\n\n*" + facts + "*"
	if got := get(m, "markdown", "text"); got != want {
		t.Errorf("text\n%v\nwant\n%v", got, want)
	}
}

// checkSlackBlocks checks a Slack message: its plain-text fallback and its
// header and section blocks, none of them markdown.
func checkSlackBlocks(t *testing.T, m map[string]any, facts string) {
	t.Helper()
	body := testAlert.Text + "\n" + facts
	if m["text"] != testAlert.Title+"\n"+body || m["mrkdwn"] != false {
		t.Errorf("text %q mrkdwn %v", m["text"], m["mrkdwn"])
	}
	if get(m, "blocks", 0, "type") != "header" || get(m, "blocks", 0, "text", "type") != "plain_text" ||
		get(m, "blocks", 0, "text", "text") != testAlert.Title {
		t.Errorf("header block %v", get(m, "blocks", 0))
	}
	if get(m, "blocks", 1, "type") != "section" || get(m, "blocks", 1, "text", "type") != "plain_text" ||
		get(m, "blocks", 1, "text", "text") != body {
		t.Errorf("section block %v", get(m, "blocks", 1))
	}
}

// checkJSONEvent checks the generic JSON event: its signature and exactly
// the documented fields.
func checkJSONEvent(t *testing.T, r received, m map[string]any, secret string) {
	t.Helper()
	// The signature is the definition's: HMAC-SHA256 of the body as
	// received, keyed by the secret, in hex.
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(r.body)
	if got, want := r.header.Get("X-Finops-Signature-256"), "sha256="+hex.EncodeToString(mac.Sum(nil)); got != want {
		t.Errorf("signature %q, want %q", got, want)
	}
	want := map[string]any{"schema_version": 1.0, "event": "idle", "title": testAlert.Title, "text": testAlert.Text,
		"resource": "gpu-node-7", "team": "ml-train", "since": "2026-12-01T14:05:00+08:00", "burnt": "73.80",
		"currency": "USD", "sent_at": "2020-09-06T02:47:53Z"}
	for k, w := range want {
		if m[k] != w {
			t.Errorf("%s = %v, want %v", k, m[k], w)
		}
	}
	if len(m) != len(want) {
		t.Errorf("%d fields, want %d: %v", len(m), len(want), m)
	}
}
