package doctor

import (
	"context"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
)

// receiver is a chat webhook on 127.0.0.1 that counts the requests it is
// sent: doctor must send it none.
type receiver struct {
	srv   *httptest.Server
	posts atomic.Int64
}

func newReceiver(t *testing.T, tlsOn bool) *receiver {
	t.Helper()
	r := &receiver{}
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { r.posts.Add(1) })
	if tlsOn {
		r.srv = httptest.NewTLSServer(h)
	} else {
		r.srv = httptest.NewServer(h)
	}
	t.Cleanup(r.srv.Close)
	return r
}

// closedPort is an address on 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestChatChannels (issue 33): doctor checks each chat channel — its URL
// and secret read and valid, its host reached — and posts nothing: the
// receivers count 0 requests, and no finding holds a token or a secret.
func TestChatChannels(t *testing.T) {
	const token, secret = "tok-3f9a1c", "sec-77b2e0"
	plain, tlsRecv := newReceiver(t, false), newReceiver(t, true)
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "feishu.secret")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"SLACK_URL":  plain.srv.URL + "/services/" + token,
		"FEISHU_URL": tlsRecv.srv.URL + "/open-apis/bot/v2/hook/" + token,
		"DEAD_URL":   "http://" + closedPort(t) + "/hook/" + token,
		"CLEAR_URL":  "http://hooks.example.com/hook/" + token,
		"NOTURL":     "::not a url " + token,
		"JSON_URL":   plain.srv.URL + "/in?token=" + token,
	}
	c := &config.Config{}
	c.Watch.Channels = []config.Channel{
		{Type: "slack", URLEnv: "SLACK_URL"},
		{Type: "feishu", URLEnv: "FEISHU_URL", SecretFile: secretFile},
		{Type: "json", URLEnv: "UNSET_URL"},
		{Type: "dingtalk", URLEnv: "FEISHU_URL", SecretFile: filepath.Join(dir, "missing")},
		{Type: "slack", URLEnv: "SLACK_URL", SecretEnv: "SLACK_URL"},
		{Type: "wecom", URLEnv: "CLEAR_URL"},
		{Type: "json", URLEnv: "NOTURL"},
		{Type: "json", URLEnv: "DEAD_URL"},
		{Type: "email"},
		{Type: "json", URLEnv: "JSON_URL"},
	}
	want := []struct{ verdict, detail string }{
		{OK, "slack#0: URL ok (unsigned); reached " + strings.TrimPrefix(plain.srv.URL, "http://") + " (TCP); nothing posted"},
		{OK, "feishu#1: URL ok (secret read); reached " + strings.TrimPrefix(tlsRecv.srv.URL, "https://") + " (TLS); nothing posted"},
		{Fail, "json#2: the URL: the environment variable UNSET_URL (url_env) is empty or not set"},
		{Fail, "dingtalk#3: the secret: secret_file:"},
		{Fail, "slack bots are not signed"},
		{Fail, "plain http would send the token in clear"},
		{Fail, "the URL is not an http(s) address"},
		{Fail, "connect:"},
		{Skip, "email#8: sent through publish.smtp"},
		{OK, "json#9: URL ok (unsigned); reached"},
	}
	d := &run{o: Options{Config: c, Getenv: func(k string) string { return env[k] }, ChatClient: tlsRecv.srv.Client()}}
	for i, ch := range c.Watch.Channels {
		d.chat(context.Background(), i, ch)
	}
	if len(d.all) != len(want) {
		t.Fatalf("%d findings, want %d: %+v", len(d.all), len(want), d.all)
	}
	for i, w := range want {
		f := d.all[i]
		if f.Check != "chat" || f.Verdict != w.verdict || !strings.Contains(f.Detail, w.detail) {
			t.Errorf("channel %d: %s %s %q, want %s chat …%s…", i, f.Verdict, f.Check, f.Detail, w.verdict, w.detail)
		}
		if strings.Contains(f.Detail, token) || strings.Contains(f.Detail, secret) {
			t.Errorf("channel %d: the finding shows a token or secret: %q", i, f.Detail)
		}
	}
	if n := plain.posts.Load() + tlsRecv.posts.Load(); n != 0 {
		t.Errorf("the receivers got %d requests, want 0", n)
	}
}

// TestChatChannelsPostNothingGenerated: over random channels (kind,
// signing secret or none, http or https receiver, token in the path or the
// query), doctor sends no request, whatever its verdict, and shows no
// token or secret; a channel that passes Send's checks is OK exactly when
// its receiver listens.
func TestChatChannelsPostNothingGenerated(t *testing.T) {
	plain, tlsRecv := newReceiver(t, false), newReceiver(t, true)
	dead := "http://" + closedPort(t)
	kinds := []string{"feishu", "lark", "dingtalk", "wecom", "slack", "json"}
	signs := map[string]bool{"feishu": true, "lark": true, "dingtalk": true, "json": true} // docs/WATCH.md: WeCom and Slack bots take no secret
	rng := rand.New(rand.NewSource(3303))
	for iter := 0; iter < 60; iter++ {
		kind := kinds[rng.Intn(len(kinds))]
		token := fmt.Sprintf("tok%08x", rng.Uint32())
		base, up := plain.srv.URL, true
		switch rng.Intn(3) {
		case 1:
			base = tlsRecv.srv.URL
		case 2:
			base, up = dead, false
		}
		url := base + "/hook/" + token
		if rng.Intn(2) == 0 {
			url = base + "/hook?access_token=" + token
		}
		env := map[string]string{"U": url}
		ch := config.Channel{Type: kind, URLEnv: "U"}
		withSecret := rng.Intn(2) == 0
		sec := ""
		if withSecret {
			sec = fmt.Sprintf("sec%08x", rng.Uint32())
			env["S"] = sec
			ch.SecretEnv = "S"
		}
		d := &run{o: Options{Getenv: func(k string) string { return env[k] }, ChatClient: tlsRecv.srv.Client()}}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		d.chat(ctx, 0, ch)
		cancel()
		f := d.all[0]
		if strings.Contains(f.Detail, token) || sec != "" && strings.Contains(f.Detail, sec) {
			t.Fatalf("iter %d: the finding shows a token or secret: %q", iter, f.Detail)
		}
		// Independent of doctor: a secret on a kind that does not sign is
		// refused; else the verdict is whether the receiver listens.
		wantOK := up && (!withSecret || signs[kind])
		if (f.Verdict == OK) != wantOK {
			t.Errorf("iter %d (%s, secret %v, %s): %s %q, want OK %v", iter, kind, withSecret, base, f.Verdict, f.Detail, wantOK)
		}
	}
	if n := plain.posts.Load() + tlsRecv.posts.Load(); n != 0 {
		t.Errorf("the receivers got %d requests, want 0", n)
	}
}
