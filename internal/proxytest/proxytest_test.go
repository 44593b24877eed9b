package proxytest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestForward: bytes pass both ways through the proxy, and Serve sees the
// connections numbered 1, 2, … in the order accepted.
func TestForward(t *testing.T) {
	// An echo server: each line back, prefixed with "echo ".
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					io.WriteString(c, "echo "+line)
				}
			}()
		}
	}()
	seen := make(chan int, 2)
	p := Start(t, ln.Addr().String(), func(n int, c net.Conn, dial func() (net.Conn, error)) {
		seen <- n
		Forward(n, c, dial)
	})
	for want := 1; want <= 2; want++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(p.Port()))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "hello\n")
		got, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || got != "echo hello\n" {
			t.Errorf("connection %d: read %q, %v", want, got, err)
		}
		if n := <-seen; n != want {
			t.Errorf("connection numbered %d, want %d", n, want)
		}
	}
}

// TestRequests: every request a client sends through the proxy is recorded,
// in order, with its method and URL, and the answers still come back.
func TestRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	defer srv.Close()
	var reqs Requests
	p := Start(t, strings.TrimPrefix(srv.URL, "http://"), reqs.Serve)
	want := []string{"GET /a", "GET /b?x=1", "PUT /c"}
	for _, w := range want {
		method, path, _ := strings.Cut(w, " ")
		req, _ := http.NewRequest(method, p.URL()+path, strings.NewReader("body"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if u, _, _ := strings.Cut(path, "?"); string(b) != u {
			t.Errorf("%s: answer %q, want %q", w, b, u)
		}
	}
	var got []string
	for _, r := range reqs.Take() {
		got = append(got, r.Method+" "+r.URL.RequestURI())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("recorded %q, want %q", got, want)
	}
	if left := reqs.Take(); len(left) != 0 {
		t.Errorf("Take again: %d requests, want none", len(left))
	}
}
