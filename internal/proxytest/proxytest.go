// Package proxytest is for tests only: a TCP proxy on 127.0.0.1 in front of
// a real server, through which a test holds, cuts or watches a connection
// to stop a client at a known point of its conversation.
package proxytest

import (
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
)

// Serve handles one client connection: n is its number (from 1), dial
// connects to the target and starts copying target → client (closing the
// client's end when the target closes its own). Serve copies client →
// target its own way (Forward copies all), holding, cutting or watching the
// bytes; both ends are closed when it returns. A Serve that never dials
// leaves the client unanswered until it returns.
type Serve func(n int, client net.Conn, dial func() (net.Conn, error))

// Forward is a Serve that passes every byte both ways.
func Forward(_ int, client net.Conn, dial func() (net.Conn, error)) {
	up, err := dial()
	if err != nil {
		return
	}
	io.Copy(up, client)
}

// Proxy is a listening proxy; it stops when its test ends.
type Proxy struct {
	ln     net.Listener
	target string
	serve  Serve
	n      atomic.Int64
}

// Start listens on a free port of 127.0.0.1 and serves each connection to
// target with serve in its own goroutine.
func Start(t testing.TB, target string, serve Serve) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, serve: serve}
	go p.accept()
	t.Cleanup(func() { ln.Close() })
	return p
}

// Port is the proxy's port on 127.0.0.1.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// URL is the proxy's address as an http:// URL.
func (p *Proxy) URL() string { return "http://127.0.0.1:" + strconv.Itoa(p.Port()) }

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(int(p.n.Add(1)), c)
	}
}

func (p *Proxy) handle(n int, client net.Conn) {
	defer client.Close()
	var up net.Conn
	dial := func() (net.Conn, error) {
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			return nil, err // the server is down: the client sees its connection closed
		}
		up = u
		go func() { io.Copy(client, u); client.Close() }()
		return u, nil
	}
	p.serve(n, client, dial)
	if up != nil {
		up.Close()
	}
}
