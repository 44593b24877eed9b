package publish

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/canceltest"
)

// noToken fails unless err names the kind and the receiver's host and
// holds nothing of the URL's path or query.
func noToken(t *testing.T, err error, kind, host string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if strings.Contains(msg, token) || strings.Contains(msg, "hook/") || strings.Contains(msg, "access_token") {
		t.Errorf("error shows the URL's token: %s", msg)
	}
	if !strings.HasPrefix(msg, "publish: webhook "+kind+" "+host+": ") {
		t.Errorf("error %q does not start with the kind and host %q", msg, kind+" "+host)
	}
}

// TestWebhookDelivery: what is retried, how long the sender waits and what
// the error says. Every kind has the token in its URL; no error may show it.
func TestWebhookDelivery(t *testing.T) {
	tests := []struct {
		name     string
		kind     string
		replies  []reply
		requests int    // the receiver sees exactly this many
		minGap   string // Retry-After honoured: the second request no sooner
		err      string // "" = delivered; else a part of the error
	}{
		{"429 then 200, Retry-After honoured", KindSlack,
			[]reply{{status: 429, body: "rate_limited", retryAfter: "1"}, okReply[KindSlack]}, 2, "1s", ""},
		{"503 then 200", KindJSON, []reply{{status: 503}, okReply[KindJSON]}, 2, "", ""},
		{"400 not retried", KindSlack, []reply{{status: 400, body: "invalid_payload"}}, 1, "", `HTTP 400 "invalid_payload"`},
		{"404 says the URL is wrong", KindWeCom, []reply{{status: 404}}, 1, "", "url_env/url_file"},
		{"redirect not followed", KindJSON, []reply{{status: 302}}, 1, "", "redirects"},
		{"feishu code with HTTP 200", KindFeishu,
			[]reply{{status: 200, body: `{"code":19021,"data":{},"msg":"sign match fail or timestamp is not within one hour from current time"}`}},
			1, "", "code 19021"},
		{"lark code with HTTP 200", KindLark, []reply{{status: 200, body: `{"code":9499,"msg":"Bad Request"}`}}, 1, "", `code 9499 "Bad Request"`},
		{"dingtalk errcode with HTTP 200", KindDingTalk,
			[]reply{{status: 200, body: `{"errcode":310000,"errmsg":"sign not match"}`}}, 1, "", "security check failed"},
		{"wecom errcode with HTTP 200", KindWeCom,
			[]reply{{status: 200, body: `{"errcode":93000,"errmsg":"invalid webhook url"}`}}, 1, "", "code 93000"},
		{"wecom rate code retried", KindWeCom,
			[]reply{{status: 200, body: `{"errcode":45009,"errmsg":"api freq out of limit"}`}, okReply[KindWeCom]}, 2, "", ""},
		{"slack 200 without ok", KindSlack, []reply{{status: 200, body: "no_service"}}, 1, "", `"no_service"`},
		{"feishu reply not JSON", KindFeishu, []reply{{status: 200, body: "<html>login</html>"}}, 1, "", "not the platform's JSON"},
		{"retries end at the deadline", KindDingTalk, []reply{{status: 500}}, 0, "", "would pass the send's deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := newReceiver(t, tt.replies...)
			w := testHook(tt.kind, rc.URL)
			if tt.requests == 0 {
				// Waits of 100, 200, 400 and 800 ms fit in 2 s; the next
				// (1.6 s) does not: 5 tries, then give up at once.
				w.Timeout, w.Backoff, tt.requests = 2*time.Second, 100*time.Millisecond, 5
			}
			err := w.Send(context.Background(), testAlert)
			got := rc.requests()
			if len(got) != tt.requests {
				t.Errorf("%d requests, want %d", len(got), tt.requests)
			}
			if tt.minGap != "" && len(got) >= 2 {
				want, _ := time.ParseDuration(tt.minGap)
				if gap := got[1].at.Sub(got[0].at); gap < want {
					t.Errorf("retried after %v, before the Retry-After of %v", gap, want)
				}
			}
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			noToken(t, err, tt.kind, rc.Listener.Addr().String())
			if !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %q lacks %q", err, tt.err)
			}
		})
	}
}

// TestWebhookHang: a receiver that accepts the request and never answers.
// Each try ends at AttemptTimeout, the send at Timeout, well before the
// receiver would.
func TestWebhookHang(t *testing.T) {
	rc := newReceiver(t, reply{hang: true})
	w := testHook(KindFeishu, rc.URL)
	w.Timeout, w.AttemptTimeout, w.Backoff = 600*time.Millisecond, 150*time.Millisecond, 20*time.Millisecond
	start := time.Now()
	err := w.Send(context.Background(), testAlert)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Send took %v with a 600ms deadline", took)
	}
	noToken(t, err, KindFeishu, rc.Listener.Addr().String())
	if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "deadline") {
		t.Errorf("error %q does not say the deadline passed", err)
	}
	if n := len(rc.requests()); n < 2 {
		t.Errorf("%d requests: a timed-out try was not retried", n)
	}
}

// TestWebhookCancel: the caller's cancellation ends a send, even one
// waiting on a hung receiver, with context.Canceled.
func TestWebhookCancel(t *testing.T) {
	rc := newReceiver(t, reply{hang: true})
	w := testHook(KindSlack, rc.URL)
	w.AttemptTimeout, w.Timeout = time.Minute, time.Minute
	canceltest.Stops(t, 200*time.Millisecond, func(ctx context.Context) error { return w.Send(ctx, testAlert) })
}

// TestWebhookUnreachable: nothing listens on the port (a closed server):
// the error is the dial's, without the URL net/http would quote.
func TestWebhookUnreachable(t *testing.T) {
	for _, kind := range WebhookKinds() {
		rc := newReceiver(t, okReply[kind])
		base, host := rc.URL, rc.Listener.Addr().String()
		rc.Close()
		w := testHook(kind, base)
		// One try: the first wait (1s) would pass the deadline, so the
		// error is the refused dial's, never a deadline hit mid-retry.
		w.Timeout, w.Backoff = 300*time.Millisecond, time.Second
		err := w.Send(context.Background(), testAlert)
		noToken(t, err, kind, host)
		if !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: error %q does not say the connection was refused", kind, err)
		}
	}
}

// TestWebhookRefused: what Send refuses before sending anything.
func TestWebhookRefused(t *testing.T) {
	tests := []struct {
		name string
		w    Webhook
		a    Alert
		err  string
	}{
		{"unknown kind", Webhook{Kind: "teams", URL: "https://example.com/x"}, testAlert, `unknown kind "teams"`},
		{"secret on an unsigned kind", Webhook{Kind: KindWeCom, URL: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=" + token, Secret: "s"},
			testAlert, "not signed"},
		{"plain http off this host", Webhook{Kind: KindSlack, URL: "http://hooks.slack.com/services/" + token}, testAlert, "https"},
		{"URL that does not parse", Webhook{Kind: KindFeishu, URL: "https://open.feishu.cn:%zz/" + token}, testAlert, "url_env/url_file"},
		{"not a URL", Webhook{Kind: KindDingTalk, URL: token}, testAlert, "not an http(s) address"},
		{"user info", Webhook{Kind: KindJSON, URL: "https://u:" + token + "@example.com/x"}, testAlert, "user name or password"},
		{"unknown event", Webhook{Kind: KindJSON, URL: "https://example.com/x"}, Alert{Event: "idel"}, `alert event "idel"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.w.Client = &http.Client{Transport: failTransport{t}}
			err := tt.w.Send(context.Background(), tt.a)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one containing %q", err, tt.err)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("error shows the token: %s", err)
			}
		})
	}
}

type failTransport struct{ t *testing.T }

func (f failTransport) RoundTrip(*http.Request) (*http.Response, error) {
	f.t.Error("a request was sent")
	return nil, errors.New("refused by the test")
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"-1", 0},
		{"soon", 0},
		{"Tue, 01 Dec 2026 14:00:30 GMT", 30 * time.Second}, // RFC 9110's HTTP-date, 30 s after now
		{"Tue, 01 Dec 2026 13:59:00 GMT", 0},                // already past
	} {
		if got := retryAfter(tt.in, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
