package publish

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// cutReceiver is a real receiver on 127.0.0.1 that reads each request and
// answers 200 with a Content-Length larger than the body it sends, then
// closes the connection: the body arrives cut. It counts the requests.
func cutReceiver(t *testing.T, body string) (url string, requests *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	requests = new(atomic.Int32)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				requests.Add(1)
				req.Body.Close()
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n" + body))
			}(c)
		}
	}()
	return "http://" + l.Addr().String() + "/hook?key=secret", requests
}

// TestWebhookCutReply: a 200 whose body is cut is not retried (it was five
// times: each a copy of the alert in the group). For every kind it counts
// as delivered after one request, unless what arrived is whole JSON with a
// refusal in it, which is then reported (and still not retried).
func TestWebhookCutReply(t *testing.T) {
	for _, kind := range WebhookKinds() {
		for _, body := range []string{"", `{"errcode":`, `{"code":0,"errcode":0,"msg":"ok","errmsg":"ok"`} {
			t.Run(kind+"/"+body, func(t *testing.T) {
				url, n := cutReceiver(t, body)
				w := Webhook{Kind: kind, URL: url, Backoff: 10 * time.Millisecond, Timeout: 5 * time.Second, AttemptTimeout: 2 * time.Second}
				if err := w.Send(context.Background(), testAlert); err != nil {
					t.Errorf("Send: %v, want delivered", err)
				}
				if got := n.Load(); got != 1 {
					t.Errorf("%d requests, want 1", got)
				}
			})
		}
	}
	// What arrived is whole JSON that says "refused": an error, not retried.
	url, n := cutReceiver(t, `{"errcode":93000,"errmsg":"invalid webhook url"}`)
	w := Webhook{Kind: KindWeCom, URL: url, Backoff: 10 * time.Millisecond, Timeout: 5 * time.Second}
	err := w.Send(context.Background(), testAlert)
	if err == nil || !strings.Contains(err.Error(), "code 93000") || strings.Contains(err.Error(), "secret") {
		t.Errorf("Send: %v, want the refusal 93000 (and no token)", err)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("%d requests, want 1", got)
	}
}
