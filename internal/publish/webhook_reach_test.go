package publish

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWebhookReach: Reach connects where Send would — straight to the
// host, or to the proxy the client names — and makes no request: the
// receiver and the proxy are sent nothing; an address where nothing
// listens is an error naming the host, never the token.
func TestWebhookReach(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { requests.Add(1) }))
	defer srv.Close()
	// The proxy: a listener that counts connections and the bytes sent on them.
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	// One connection is expected: what it carried, once the client closed it.
	proxied := make(chan int64, 1)
	go func() {
		c, err := pl.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var n int64
		buf := make([]byte, 512)
		for {
			k, err := c.Read(buf)
			n += int64(k)
			if err != nil {
				proxied <- n
				return
			}
		}
	}()
	proxyURL, _ := url.Parse("http://" + pl.Addr().String())
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()

	const token = "tok-0d15ea5e"
	for _, tc := range []struct {
		name, url string
		client    *http.Client
		want      string // in what was reached, or in the error
		ok        bool
	}{
		{"straight", srv.URL + "/hook/" + token, &http.Client{Transport: &http.Transport{}}, strings.TrimPrefix(srv.URL, "http://") + " (TCP)", true},
		{"through a proxy", srv.URL + "/hook/" + token, &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}, "the proxy " + pl.Addr().String(), true},
		{"nothing listens", "http://" + deadAddr + "/hook/" + token, &http.Client{Transport: &http.Transport{}}, "publish: webhook slack " + deadAddr + ": connect:", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Webhook{Kind: KindSlack, URL: tc.url, Client: tc.client}.Reach(context.Background())
			text := got
			if err != nil {
				text = err.Error()
			}
			if (err == nil) != tc.ok || !strings.Contains(text, tc.want) || strings.Contains(text, token) {
				t.Errorf("Reach = %q, %v; want ok %v and …%s…, no token", got, err, tc.ok, tc.want)
			}
		})
	}
	select {
	case n := <-proxied:
		if n != 0 {
			t.Errorf("the proxy was sent %d bytes, want 0", n)
		}
	case <-time.After(5 * time.Second):
		t.Error("the proxy's connection was never made, or never closed")
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests to the receiver, want 0", n)
	}
}
