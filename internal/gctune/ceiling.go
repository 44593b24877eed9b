package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Ceiling holds the Go heap under a fixed ceiling for one stage: the
// collector runs when the process's Go memory reaches ceiling bytes (GOGC
// off, a soft memory limit) instead of when the heap has grown a percent
// above what the last collection marked. A streaming stage keeps a few MB
// live whatever its input's size, but what a collection marks varies with
// what the goroutines allocate while it marks, so a proportional goal
// peaks higher the more collections a long input meets (issue #35: 200,000
// FOCUS rows peaked 1.03–1.18× higher than 20,000 at GOGC 200). Under a
// ceiling every collection has the same goal, so a long input and a short
// one peak alike, and fewer collections run.
//
// The invariant (ceiling_test.go, generated live sizes): while the stage
// runs, GOGC is off and the memory limit is the ceiling until two
// collections in a row mark more than three quarters of it; from then on
// the stage runs at GOGC fallback with the previous memory limit, so a
// stage that does keep much live is not collected back to back. (What a
// collection marks is the live heap plus what was allocated while it
// marked: 8 MB for a FOCUS import's 4 MB live, more on a loaded machine,
// so the bar is well above a streaming stage's and one busy collection
// does not trip it.)
//
// Unless the user set GOGC (then nothing changes) or GOMEMLIMIT (then the
// user's limit stays and the stage runs at GOGC fallback, as Set does), or
// another stage holds the settings. restore puts the previous GOGC and
// memory limit back and stops watching.
func Ceiling(getenv func(string) string, ceiling int64, fallback int) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	if getenv("GOMEMLIMIT") != "" {
		return Set(getenv, fallback)
	}
	if !held.CompareAndSwap(false, true) {
		return func() {}
	}
	w := &ceilingWatch{ceiling: ceiling, fallback: fallback}
	w.prevPercent = debug.SetGCPercent(-1)
	w.prevLimit = debug.SetMemoryLimit(ceiling)
	w.arm()
	return w.restore
}

// ceilingWatch looks at the live heap after every collection of a stage
// held under a ceiling, and gives the ceiling up when it is too low.
type ceilingWatch struct {
	ceiling     int64
	fallback    int
	prevPercent int
	prevLimit   int64

	mu       sync.Mutex
	ended    bool // restore ran: the settings are no longer the stage's
	over     int  // collections in a row that marked above the bar
	fellBack bool // two did: the stage runs at fallback
}

// sentinel is an object made to be collected: its cleanup runs after the
// collection that found it unreachable. It holds a pointer so that it is
// not packed into a tiny allocation, whose cleanup may never run.
type sentinel struct{ _ *byte }

// arm has afterGC called once the next collection has run.
func (w *ceilingWatch) arm() {
	runtime.AddCleanup(new(sentinel), (*ceilingWatch).afterGC, w)
}

// afterGC gives the ceiling up for the rest of the stage when the last
// two collections marked more than three quarters of it, and otherwise
// waits for the next collection.
func (w *ceilingWatch) afterGC() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended || w.fellBack {
		return
	}
	w.over++
	if markedHeap() <= uint64(w.ceiling/4*3) {
		w.over = 0
	}
	if w.over >= 2 {
		w.fellBack = true
		debug.SetGCPercent(w.fallback)
		debug.SetMemoryLimit(w.prevLimit)
		return
	}
	w.arm()
}

// restore ends the stage: the settings found before it come back, and a
// cleanup still queued finds the watch ended.
func (w *ceilingWatch) restore() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return
	}
	w.ended = true
	debug.SetMemoryLimit(w.prevLimit)
	debug.SetGCPercent(w.prevPercent)
	held.Store(false)
}

// markedHeap is the heap the last collection marked live.
func markedHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return math.MaxUint64 // unknown: give the ceiling up rather than risk thrashing
	}
	return s[0].Value.Uint64()
}
