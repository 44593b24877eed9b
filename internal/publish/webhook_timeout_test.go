package publish

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestWebhookErrTimedOut: a send that runs out of time — a receiver that
// accepts and never answers, one that is not listening (retried until the
// deadline), a caller's deadline shorter than the send's — is marked
// ErrTimedOut, so the watch can stop trying that channel for the pass; a
// refusal (400) and a cancelled send are not.
func TestWebhookErrTimedOut(t *testing.T) {
	// It reads the request (so that the server sees the client hang up)
	// and never answers.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer hang.Close()
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad", http.StatusBadRequest)
	}))
	defer refuse.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/x"
	l.Close()
	bg := context.Background()
	short, cancelShort := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancelShort()
	cancelled, cancel := context.WithCancel(bg)
	time.AfterFunc(200*time.Millisecond, cancel)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		w    Webhook
		want bool
	}{
		{"hung receiver", bg, Webhook{Kind: KindJSON, URL: hang.URL + "/x", Timeout: 500 * time.Millisecond}, true},
		{"hung receiver, the caller's deadline", short, Webhook{Kind: KindJSON, URL: hang.URL + "/x"}, true},
		{"nothing listening", bg, Webhook{Kind: KindJSON, URL: closed, Timeout: time.Second, Backoff: 200 * time.Millisecond}, true},
		{"refused", bg, Webhook{Kind: KindJSON, URL: refuse.URL + "/x", Timeout: time.Second}, false},
		{"cancelled", cancelled, Webhook{Kind: KindJSON, URL: hang.URL + "/x", Timeout: 5 * time.Second}, false},
	} {
		start := time.Now()
		err := tc.w.Send(tc.ctx, testAlert)
		if err == nil || errors.Is(err, ErrTimedOut) != tc.want {
			t.Errorf("%s: err = %v; ErrTimedOut %v, want %v", tc.name, err, errors.Is(err, ErrTimedOut), tc.want)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: took %s", tc.name, d)
		}
	}
}
