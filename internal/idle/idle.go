// Package idle ends a remote read that stops making progress: a Watch
// cancels the context of a request, and of the reads of its body, once
// Limit passes without a byte, and says so (*StallError), so that a server
// that stalls mid-download is an error naming what was read instead of a
// hang. The overall deadline stays the caller's context: a Watch only ever
// ends a read sooner.
//
// The invariant: every remote read either makes progress or ends, within
// its idle limit, with an error naming the object and what to check.
package idle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/finops-oss/finops/internal/capped"
)

// DefaultLimit is how long a read may wait for a byte when nothing is
// configured (sources.idle_timeout): long enough for a slow service to
// answer a request, short enough that a stalled one is noticed in a run.
const DefaultLimit = 60 * time.Second

// timer is the part of *time.Timer a Watch uses.
type timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// clock makes the Watch's timer: the wall clock in use, a controlled clock
// in tests.
type clock interface {
	AfterFunc(d time.Duration, f func()) timer
}

// wallClock is time's.
type wallClock struct{}

func (wallClock) AfterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }

// Watch is one request's idle deadline. It is armed while the caller waits
// on the service (from Start, and inside each Read of a Reader) and
// disarmed while the caller works on what it received, so that a slow disk
// is never taken for a stalled server.
type Watch struct {
	parent context.Context
	cancel context.CancelFunc
	limit  time.Duration
	timer  timer

	mu      sync.Mutex
	stalled bool
}

// Start returns a context for one request (and the reads of its body) that
// is cancelled once limit passes without progress, and the Watch that
// keeps it. The Watch starts armed: a request whose answer does not start
// within limit is ended too. limit <= 0 is DefaultLimit. Stop releases it.
func Start(ctx context.Context, limit time.Duration) (context.Context, *Watch) {
	return startClock(ctx, limit, wallClock{})
}

// startClock is Start on clk.
func startClock(ctx context.Context, limit time.Duration, clk clock) (context.Context, *Watch) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	wctx, cancel := context.WithCancel(ctx)
	w := &Watch{parent: ctx, cancel: cancel, limit: limit}
	w.timer = clk.AfterFunc(limit, w.fire)
	return wctx, w
}

// fire ends the request, unless the caller's own context ended first: an
// interrupt or the overall deadline stays what it is.
func (w *Watch) fire() {
	w.mu.Lock()
	if w.parent.Err() == nil {
		w.stalled = true
	}
	w.mu.Unlock()
	w.cancel()
}

// Arm starts the limit again: the caller is about to wait on the service.
func (w *Watch) Arm() { w.timer.Reset(w.limit) }

// Disarm stops the limit: the caller has what it waited for.
func (w *Watch) Disarm() { w.timer.Stop() }

// Stop releases the Watch and cancels its context; the caller is done with
// the request.
func (w *Watch) Stop() {
	w.timer.Stop()
	w.cancel()
}

// Err is the *StallError of a request the Watch ended, with what was read
// of size bytes (size < 0: unknown), or nil.
func (w *Watch) Err(read, size int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stalled {
		return nil
	}
	return &StallError{Limit: w.limit, Read: read, Size: size}
}

// Reader wraps body, whose request was made with the Watch's context: each
// Read is armed, so a Read that waits limit without a byte is ended and
// returns a *StallError. size is the body's length for messages (< 0:
// unknown).
func (w *Watch) Reader(body io.Reader, size int64) *Reader {
	return &Reader{w: w, r: body, size: size}
}

// Reader is a body under a Watch; it counts what it passed on.
type Reader struct {
	w    *Watch
	r    io.Reader
	n    int64
	size int64
}

// Read reads from the body under the idle limit. A read the Watch ended
// is a *StallError; a connection that closed or was reset mid-body is a
// *CutError; an interrupt (the caller's context) stays what it is.
func (r *Reader) Read(p []byte) (int, error) {
	r.w.Arm()
	n, err := r.r.Read(p)
	r.w.Disarm()
	r.n += int64(n)
	if err == nil || err == io.EOF {
		return n, err
	}
	if serr := r.w.Err(r.n, r.size); serr != nil {
		return n, serr
	}
	if r.w.parent.Err() == nil && cut(err) {
		return n, &CutError{Read: r.n, Size: r.size, Err: err}
	}
	return n, err
}

// cut reports whether a body's read error is its connection ending early:
// net/http's unexpected EOF (fewer bytes than Content-Length, or a chunked
// body without its end), a reset, or any other error of the socket's read.
func cut(err error) bool {
	var op *net.OpError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.As(err, &op)
}

// StallError is a request the Watch ended: no byte came for Limit.
type StallError struct {
	Limit time.Duration
	Read  int64 // bytes received before the stall
	Size  int64 // the object's length; < 0: unknown
}

func (e *StallError) Error() string {
	return fmt.Sprintf("no data for %s (%s): the server stopped sending", seconds(e.Limit), progress(e.Read, e.Size))
}

// CutError is a body whose connection closed before its end.
type CutError struct {
	Read int64 // bytes received before the cut
	Size int64 // the object's length; < 0: unknown
	Err  error // the transport's error
}

func (e *CutError) Error() string {
	at := capped.Bytes(e.Read)
	if e.Size >= 0 {
		at += " of " + capped.Bytes(e.Size)
	}
	return fmt.Sprintf("connection closed after %s (%v)", at, e.Err)
}

func (e *CutError) Unwrap() error { return e.Err }

// Advice is what to do about a *StallError or a *CutError in err, for the
// end of a message: where is the service (an endpoint, "AWS"), setting the
// key of the idle limit ("" when it has none). "" for any other error.
func Advice(err error, where, setting string) string {
	var (
		se *StallError
		ce *CutError
	)
	switch {
	case errors.As(err, &se):
		s := "check the network and any proxy between finops and " + where + ", then run it again"
		if setting != "" {
			s += "; on a link that slow, raise " + setting
		}
		return s
	case errors.As(err, &ce):
		return "run it again; if it repeats, check the network and any proxy between finops and " + where
	}
	return ""
}

// seconds writes a limit as a config would give it: 60s, 90s, 200ms.
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// progress says how much of an object was read: "read 12.3 MiB of 40 MiB",
// "read 0 bytes", for the messages of a stall or a cut connection.
func progress(read, size int64) string {
	if size < 0 {
		return "read " + capped.Bytes(read)
	}
	return "read " + capped.Bytes(read) + " of " + capped.Bytes(size)
}
