package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/sanitize"
)

// Webhook kinds: the chat platforms' group bots and our own JSON schema.
const (
	KindFeishu   = "feishu"
	KindLark     = "lark"
	KindDingTalk = "dingtalk"
	KindWeCom    = "wecom"
	KindSlack    = "slack"
	KindJSON     = "json"
)

// WebhookKinds lists the kinds Send knows, for config validation.
func WebhookKinds() []string {
	var out []string
	for _, c := range channels() {
		out = append(out, c.kind)
	}
	return out
}

// Signs reports whether a kind uses Webhook.Secret: Feishu, Lark and
// DingTalk sign with it, the JSON schema puts an HMAC of the body in a
// header; WeCom and Slack have no signing (their URL is the credential).
// A kind the table does not hold is taken to sign, so its secret is not
// refused before the kind itself is.
func Signs(kind string) bool {
	c, ok := channelOf(kind)
	return !ok || c.signs
}

// Webhook sends alerts to one chat group's bot or a JSON receiver.
type Webhook struct {
	Kind   string // "feishu", "lark", "dingtalk", "wecom", "slack", "json"
	URL    string // holds a token: never logged; errors name only the kind and host
	Secret string // signing secret for feishu/lark/dingtalk ("" = unsigned)
	Client *http.Client

	// Timeout bounds one Send, retries included (default 30s).
	Timeout time.Duration
	// AttemptTimeout bounds one request; a request that takes longer is
	// retried while Timeout allows (default 10s).
	AttemptTimeout time.Duration
	// Backoff is the first wait before a retry, doubled after each (default
	// 1s); a Retry-After from the server replaces it.
	Backoff time.Duration
	// Now is the clock of the signatures' timestamps (default time.Now).
	Now func() time.Time
}

// ErrTimedOut marks a send that ran out of time: no answer before its
// deadline, or retries (timeouts, 429, 5xx, an unreachable host) until the
// next would pass it. A caller sending many messages to one channel can
// stop trying that channel for now instead of paying the deadline again
// for each (errors.Is).
var ErrTimedOut = errors.New("publish: the send ran out of time")

// timedOut wraps err so that errors.Is finds ErrTimedOut too; the text is
// err's.
type timedOut struct{ error }

func (e timedOut) Unwrap() []error { return []error{e.error, ErrTimedOut} }

// maxReply is as much of a reply as is read: the platforms answer with a
// few dozen bytes of JSON.
const maxReply = 64 << 10

// Send delivers one alert: the platform's documented message (webhook_format.go),
// signed when a secret is set, POSTed with a deadline. 429, 5xx, the
// platforms' own "too fast" codes and requests that time out are retried
// with backoff within Timeout (a Retry-After is honoured, or the send gives
// up at once when it points past the deadline); other refusals are not. A
// retried request whose first answer was lost may show the alert twice: a
// duplicate is better than a silent idle GPU.
//
// Errors start with "publish: webhook <kind> <host>" and never contain the
// URL's path or query, where the platforms put the token.
func (w Webhook) Send(ctx context.Context, a Alert) error {
	u, err := w.target()
	if err != nil {
		return err
	}
	if !slices.Contains(alertEvents(), a.Event) {
		return w.errorf("alert event %q is none of %s", sanitize.Control(a.Event), strings.Join(alertEvents(), ", "))
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	body, header, err := w.payload(a, now(), u)
	if err != nil {
		return w.errorf("build the message: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	wait := durationOr(w.Backoff, time.Second)
	for attempt := 1; ; attempt++ {
		retry, after, err := w.attempt(ctx, u, header, body)
		if err == nil {
			return nil
		}
		if !retry {
			return err
		}
		if after > 0 {
			wait = after
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return timedOut{fmt.Errorf("%w; gave up after %s: the next one (in %s) would pass the send's deadline of %s",
				err, tries(attempt), wait.Round(time.Millisecond), w.timeout())}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			err = fmt.Errorf("%w; gave up after %s: %w", err, tries(attempt), ctx.Err())
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return timedOut{err}
			}
			return err
		case <-t.C:
		}
		if after == 0 {
			wait *= 2
		}
	}
}

// target parses the URL without ever quoting it: url.Parse's error holds
// the whole address, token included.
func (w Webhook) target() (*url.URL, error) {
	if !slices.Contains(WebhookKinds(), w.Kind) {
		return nil, fmt.Errorf("publish: webhook: unknown kind %q: want one of %s", sanitize.Control(w.Kind), strings.Join(WebhookKinds(), ", "))
	}
	if w.Secret != "" && !Signs(w.Kind) {
		return nil, fmt.Errorf("publish: webhook %s: a secret is set, but %s bots are not signed: remove secret_env/secret_file from the channel", w.Kind, w.Kind)
	}
	u, err := url.Parse(w.URL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("publish: webhook %s: the URL is not an http(s) address: check the channel's url_env/url_file (its value is not shown: it holds the token)", w.Kind)
	}
	if u.User != nil {
		return nil, fmt.Errorf("publish: webhook %s %s: the URL holds a user name or password: the bots take none", w.Kind, u.Hostname())
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("publish: webhook %s %s: plain http would send the token in clear: use the https address", w.Kind, u.Hostname())
	}
	return u, nil
}

// attempt makes one request. retry says whether another may succeed; after
// is the server's Retry-After (0 when it gave none).
func (w Webhook) attempt(ctx context.Context, u *url.URL, header http.Header, body []byte) (retry bool, after time.Duration, err error) {
	actx, cancel := context.WithTimeout(ctx, w.attemptTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return false, 0, w.errorf("build the request: %v", unwrapURL(err))
	}
	req.Header = header.Clone()
	resp, err := w.client().Do(req)
	if err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return false, 0, timedOut{w.errorf("no answer before the send's deadline: %w", ctx.Err())}
		case ctx.Err() != nil:
			return false, 0, w.errorf("%w", ctx.Err()) // the caller cancelled
		case actx.Err() != nil:
			return true, 0, w.errorf("no answer within %s: check the network and proxy between this host and %s", w.attemptTimeout(), u.Hostname())
		}
		// Connection refused, DNS, TLS: worth another try within the deadline.
		return true, 0, w.errorf("%v: check the network and the channel's URL host", unwrapURL(err))
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return w.cutReply(reply)
		}
		return true, 0, w.errorf("HTTP %d, reading the reply: %v", resp.StatusCode, unwrapURL(err))
	}
	switch code := resp.StatusCode; {
	case code == http.StatusTooManyRequests || code >= 500:
		return true, retryAfter(resp.Header.Get("Retry-After"), time.Now()), w.errorf("HTTP %d %s", code, quoteReply(reply))
	case code >= 300 && code < 400:
		return false, 0, w.errorf("HTTP %d: the URL redirects; use the address the platform gave for the bot", code)
	case code >= 400:
		return false, 0, w.errorf("HTTP %d %s: %s", code, quoteReply(reply), refusalHint(code))
	}
	return w.checkReply(reply)
}

// cutReply decides a 2xx answer whose body was cut (the connection closed
// before Content-Length, or the attempt's time ran out while reading).
// The platform took the request: retrying it would post the alert again
// (issue #26: five copies of one alert). Slack and the JSON schema say
// "delivered" with the status alone. Feishu, DingTalk and WeCom answer 200
// for refusals too and put the result in the body; when what arrived of it
// is whole JSON, it is read as usual, else the result is unknown and the
// message is taken as delivered: the common case is a reply lost on the
// way back from a bot that posted it, and a refusal (a bad key, a revoked
// bot) shows on the next message, whose reply arrives whole.
func (w Webhook) cutReply(partial []byte) (retry bool, after time.Duration, err error) {
	if c, ok := channelOf(w.Kind); (!ok || !c.statusOnly) && json.Valid(partial) {
		return w.checkReply(partial)
	}
	return false, 0, nil
}

// client is the caller's, or one that refuses redirects: a POST redirected
// becomes a GET, and the new address would be followed with the token.
func (w Webhook) client() *http.Client {
	if w.Client != nil {
		return w.Client
	}
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// errorf prefixes a message with the kind and host, never more of the URL;
// %w works in format.
func (w Webhook) errorf(format string, args ...any) error {
	return fmt.Errorf("publish: webhook %s %s: "+format, append([]any{w.Kind, w.host()}, args...)...)
}

// host is the URL's host for messages ("?" when it does not parse).
func (w Webhook) host() string {
	if u, err := url.Parse(w.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return "?"
}

// unwrapURL drops net/http's *url.Error wrapper, whose text quotes the
// whole request URL, token included; what it wraps names at most host:port.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// quoteReply is the start of a reply for an error message: one line of
// printable text (a reply is the platform's, but a proxy may say anything).
func quoteReply(b []byte) string {
	s := strings.TrimSpace(sanitize.URLs(sanitize.Control(string(b))))
	if s == "" {
		return "(empty reply)"
	}
	return strconv.Quote(sanitize.Truncate(s, 200))
}

func refusalHint(code int) string {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusGone:
		return "the bot's URL is wrong, revoked or the bot was removed from its group: put the current URL in the channel's url_env/url_file"
	}
	return "the platform refused the message; not retried"
}

// retryAfter reads a Retry-After header: seconds or an HTTP date (RFC 9110
// §10.2.3); 0 when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func tries(n int) string {
	if n == 1 {
		return "1 try"
	}
	return strconv.Itoa(n) + " tries"
}

// timeout and attemptTimeout are Timeout and AttemptTimeout with their
// defaults.
func (w Webhook) timeout() time.Duration        { return durationOr(w.Timeout, 30*time.Second) }
func (w Webhook) attemptTimeout() time.Duration { return durationOr(w.AttemptTimeout, 10*time.Second) }

func durationOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
