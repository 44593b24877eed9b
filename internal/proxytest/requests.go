package proxytest

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"sync"
)

// Requests is a Serve that passes every byte both ways and records each
// HTTP request a client sends (method, URL, headers), so that a test can
// count what a client asked a real server — e.g. that a second pull
// downloads no object. A request is recorded before its bytes go on, so
// once its answer has come the record is there. A request is forwarded
// whole, body and all: a client waiting for "100 Continue" before its body
// would wait forever.
type Requests struct {
	mu   sync.Mutex
	seen []*http.Request
}

// Serve forwards the connection one request at a time.
func (r *Requests) Serve(_ int, client net.Conn, dial func() (net.Conn, error)) {
	up, err := dial()
	if err != nil {
		return
	}
	var raw bytes.Buffer // what was read from the client and not yet forwarded
	br := bufio.NewReader(io.TeeReader(client, &raw))
	for {
		req, err := http.ReadRequest(br)
		if err == nil {
			_, err = io.Copy(io.Discard, req.Body)
			req.Body.Close()
		}
		if err != nil {
			// The client is gone, or this is no HTTP: pass the rest on as it is.
			up.Write(raw.Bytes())
			io.Copy(up, client)
			return
		}
		r.mu.Lock()
		r.seen = append(r.seen, req)
		r.mu.Unlock()
		// The request's bytes are what was read less what bufio holds
		// ahead of the next one.
		n := raw.Len() - br.Buffered()
		if _, err := up.Write(raw.Next(n)); err != nil {
			return
		}
	}
}

// Take returns the requests recorded since the last Take, oldest first.
func (r *Requests) Take() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.seen
	r.seen = nil
	return out
}
