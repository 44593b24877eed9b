package idle

import (
	"context"
	"errors"
	"io"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves: Advance fires, in the caller's
// goroutine, every armed timer whose moment has come, so a case's outcome
// depends on its timings only, never on the machine's load.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*fakeTimer
}

type fakeTimer struct {
	c      *fakeClock
	at     time.Duration
	active bool
	f      func()
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now + d, active: true, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.at, t.active = t.c.now+d, true
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

// Advance moves the clock on by d, firing the timers due (as time.AfterFunc
// would: once the limit has passed, at its end or later).
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	var due []func()
	for _, t := range c.timers {
		if t.active && t.at <= c.now {
			t.active = false
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// chunk is one Read of a fake body: the server's silence before it, then n
// bytes, or err.
type chunk struct {
	gap time.Duration
	n   int
	err error
}

// fakeBody serves chunks as an HTTP body does: a read waits its gap (on the
// fake clock), then fails with the context's error if the request was
// cancelled meanwhile, as net/http's bodies do.
type fakeBody struct {
	ctx    context.Context
	clk    *fakeClock
	chunks []chunk
	i      int
	// before runs before chunk i is waited for (the parent's interrupt).
	before func(i int)
}

func (b *fakeBody) Read(p []byte) (int, error) {
	if b.i == len(b.chunks) {
		return 0, io.EOF
	}
	c := b.chunks[b.i]
	if b.before != nil {
		b.before(b.i)
	}
	b.i++
	b.clk.Advance(c.gap)
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if c.err != nil {
		return 0, c.err
	}
	return c.n, nil
}

// TestWatchGenerated checks the invariant over random timings: a read
// errors exactly when the server's silence (the answer's wait, or the gap
// before a chunk) reaches the limit, never because the reader itself took
// long between reads; the error is a *StallError with the bytes received
// before the silence; an interrupt of the caller's context stays
// context.Canceled, and a cut body a *CutError. The expectation is worked
// out from the case's timings alone: the first silence >= limit.
func TestWatchGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(32))
	for c := 0; c < 2000; c++ {
		wc := genWatchCase(rng)
		limit, head, chunks, size, interruptAt, work := wc.limit, wc.head, wc.chunks, wc.size, wc.interruptAt, wc.work
		wantHead, wantStall, before, endsAt := wc.expect()

		parent, cancelParent := context.WithCancel(context.Background())
		clk := &fakeClock{}
		wctx, w := startClock(parent, limit, clk)
		clk.Advance(head) // waiting for the answer
		if wctx.Err() != nil {
			if !wantHead {
				t.Fatalf("case %d: the request was ended after a wait of %v, under the limit %v", c, head, limit)
			}
			var se *StallError
			if err := w.Err(0, -1); !errors.As(err, &se) || se.Limit != limit || se.Read != 0 {
				t.Fatalf("case %d: w.Err after a stalled answer = %v, want a StallError of %v, 0 read", c, err, limit)
			}
			w.Stop()
			cancelParent()
			continue
		}
		if wantHead {
			t.Fatalf("case %d: the answer waited %v, the limit is %v, and the request goes on", c, head, limit)
		}
		w.Disarm()
		body := &fakeBody{ctx: wctx, clk: clk, chunks: chunks, before: func(i int) {
			if i == interruptAt {
				cancelParent()
			}
		}}
		r := w.Reader(body, size)
		var (
			got int64
			err error
			buf = make([]byte, 8192)
		)
		for i := 0; ; i++ {
			var n int
			n, err = r.Read(buf)
			got += int64(n)
			if err != nil {
				break
			}
			clk.Advance(work[i])
		}
		w.Stop()
		cancelParent()

		checkWatchEnd(t, c, wc, err, got, wantStall, before, endsAt)
		if got != r.n {
			t.Fatalf("case %d: counted %d, but %d bytes were returned", c, r.n, got)
		}
	}
}

// watchCase is one generated transfer: the limit, the wait for the
// answer, the body's chunks (one maybe cut, one maybe interrupted) and
// the reader's work between reads.
type watchCase struct {
	limit, head        time.Duration
	chunks             []chunk
	size               int64
	cutAt, interruptAt int
	work               []time.Duration
}

// genWatchCase draws a case.
func genWatchCase(rng *rand.Rand) watchCase {
	limit := time.Duration(1+rng.Intn(1000)) * time.Millisecond
	// A silence below, at or above the limit: the limit's ends are
	// where an off-by-one would hide.
	silence := func() time.Duration {
		switch rng.Intn(5) {
		case 0:
			return limit
		case 1:
			return limit + time.Duration(1+rng.Int63n(int64(limit)))
		case 2:
			return limit - 1
		default:
			return time.Duration(rng.Int63n(int64(limit)))
		}
	}
	head := silence()
	chunks := make([]chunk, rng.Intn(12))
	size := int64(0)
	for i := range chunks {
		chunks[i] = chunk{gap: silence(), n: 1 + rng.Intn(4096)}
		size += int64(chunks[i].n)
	}
	cutAt := -1 // the chunk the connection is cut at
	if len(chunks) > 0 && rng.Intn(6) == 0 {
		cutAt = rng.Intn(len(chunks))
		chunks[cutAt].err = io.ErrUnexpectedEOF
	}
	interruptAt := -1 // the chunk before whose wait the caller is interrupted
	if len(chunks) > 0 && rng.Intn(6) == 0 {
		interruptAt = rng.Intn(len(chunks))
	}
	// Between reads the reader works (a slow disk): any length, the
	// limit not running.
	work := make([]time.Duration, len(chunks))
	for i := range work {
		work[i] = time.Duration(rng.Int63n(3 * int64(limit)))
	}
	return watchCase{limit: limit, head: head, chunks: chunks, size: size, cutAt: cutAt, interruptAt: interruptAt, work: work}
}

// expect is what must happen, from the timings alone: whether the answer
// stalls, the first chunk whose gap reaches the limit (-1: none), the
// bytes before it, and the chunk whose read ends the copy.
func (wc watchCase) expect() (bool, int, int64, int) {
	limit, head, chunks, cutAt, interruptAt := wc.limit, wc.head, wc.chunks, wc.cutAt, wc.interruptAt
	var (
		wantHead  = head >= limit
		wantStall = -1 // index of the first chunk whose gap reaches the limit
		before    int64
	)
	for i, ch := range chunks {
		if i == interruptAt || i == cutAt && ch.gap < limit {
			break
		}
		if ch.gap >= limit {
			wantStall = i
			break
		}
		before += int64(ch.n)
	}
	endsAt := len(chunks) // the chunk whose read ends the copy
	for i, ch := range chunks {
		if i == interruptAt || ch.gap >= limit || ch.err != nil {
			endsAt = i
			break
		}
	}
	return wantHead, wantStall, before, endsAt
}

// checkWatchEnd checks how the copy ended: a stall, an interruption, a
// cut connection, or the whole body.
func checkWatchEnd(t *testing.T, c int, wc watchCase, err error, got int64, wantStall int, before int64, endsAt int) {
	t.Helper()
	limit, chunks, size, cutAt, interruptAt := wc.limit, wc.chunks, wc.size, wc.cutAt, wc.interruptAt
	var (
		se *StallError
		ce *CutError
	)
	switch {
	case wantStall >= 0 && wantStall == endsAt:
		if !errors.As(err, &se) || se.Read != before || se.Size != size || se.Limit != limit {
			t.Fatalf("case %d (limit %v, chunks %v): err %v, want a StallError after %d of %d bytes", c, limit, chunks, err, before, size)
		}
	case endsAt < len(chunks) && endsAt == interruptAt:
		if !errors.Is(err, context.Canceled) || errors.As(err, &se) || errors.As(err, &ce) {
			t.Fatalf("case %d: interrupted: err %v, want context.Canceled only", c, err)
		}
	case endsAt < len(chunks) && endsAt == cutAt:
		if !errors.As(err, &ce) || ce.Read != before || ce.Size != size || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("case %d: cut: err %v, want a CutError after %d of %d bytes", c, err, before, size)
		}
	default:
		if err != io.EOF || got != size {
			t.Fatalf("case %d (limit %v, chunks %v): err %v after %d bytes, want the whole %d bytes and io.EOF", c, limit, chunks, err, got, size)
		}
	}
}

// TestWatchRealClock runs the Watch on the wall clock, as the stores use
// it: a body that blocks until its request is cancelled (a server that went
// silent) ends with a StallError, well within a generous margin of the
// limit, and one whose reader is interrupted stays context.Canceled.
func TestWatchRealClock(t *testing.T) {
	for _, tc := range []struct {
		name      string
		interrupt bool
	}{{"stalled server", false}, {"interrupted", true}} {
		t.Run(tc.name, func(t *testing.T) {
			parent, cancel := context.WithCancel(context.Background())
			defer cancel()
			const limit = 50 * time.Millisecond
			wctx, w := Start(parent, limit)
			defer w.Stop()
			w.Disarm()
			if tc.interrupt {
				go func() { time.Sleep(limit / 5); cancel() }()
			}
			start := time.Now()
			_, err := io.ReadAll(w.Reader(blockingBody{wctx}, 10))
			var se *StallError
			switch {
			case tc.interrupt && (!errors.Is(err, context.Canceled) || errors.As(err, &se)):
				t.Fatalf("err %v, want context.Canceled", err)
			case !tc.interrupt && !errors.As(err, &se):
				t.Fatalf("err %v, want a StallError", err)
			}
			if d := time.Since(start); d > limit+5*time.Second {
				t.Fatalf("took %v, limit %v", d, limit)
			}
		})
	}
}

// blockingBody is a server that sent its headers and then nothing: a Read
// waits until the request's context ends.
type blockingBody struct{ ctx context.Context }

func (b blockingBody) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

// TestMessages checks the wording of the errors and their advice; the
// sizes are worked out by hand: 12.3 MiB is 12.3 × 1,048,576 ≈ 12,897,485
// bytes, 40 MiB is 41,943,040.
func TestMessages(t *testing.T) {
	for _, tc := range []struct {
		err        error
		want       string
		adviceHas  []string
		adviceLack []string
	}{
		{&StallError{Limit: 60 * time.Second, Read: 12897485, Size: 41943040},
			"no data for 60s (read 12.3 MiB of 40 MiB): the server stopped sending",
			[]string{"check the network and any proxy between finops and https://storage.googleapis.com", "run it again", "raise sources.idle_timeout"}, nil},
		{&StallError{Limit: 200 * time.Millisecond, Read: 0, Size: -1},
			"no data for 200ms (read 0 bytes): the server stopped sending", []string{"sources.idle_timeout"}, nil},
		{&StallError{Limit: 90 * time.Second, Read: 10, Size: 40},
			"no data for 90s (read 10 bytes of 40 bytes): the server stopped sending", []string{"proxy"}, nil},
		{&CutError{Read: 10, Size: 40, Err: io.ErrUnexpectedEOF},
			"connection closed after 10 bytes of 40 bytes (unexpected EOF)",
			[]string{"run it again; if it repeats, check the network and any proxy between finops and https://storage.googleapis.com"},
			[]string{"idle_timeout"}},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		advice := Advice(tc.err, "https://storage.googleapis.com", "sources.idle_timeout")
		for _, s := range tc.adviceHas {
			if !strings.Contains(advice, s) {
				t.Errorf("Advice(%v) = %q, want it to say %q", tc.err, advice, s)
			}
		}
		for _, s := range tc.adviceLack {
			if strings.Contains(advice, s) {
				t.Errorf("Advice(%v) = %q, must not say %q", tc.err, advice, s)
			}
		}
	}
	if a := Advice(io.EOF, "x", "y"); a != "" {
		t.Errorf("Advice(io.EOF) = %q, want none", a)
	}
}
