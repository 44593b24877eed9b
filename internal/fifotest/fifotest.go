// Package fifotest makes named pipes for tests of inputs that are not
// regular files, and bounds what a regression costs them: a reader blocked
// in opening a FIFO is released rather than left to hang the suite. Only
// tests import it.
package fifotest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Make creates a FIFO at path (and its folder) that nothing writes to, so
// opening it for reading blocks. It skips tb where FIFOs cannot be made.
func Make(tb testing.TB, path string) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := mkfifo(path); err != nil {
		tb.Skipf("mkfifo: %v", err)
	}
	return path
}

// Within waits for done for d. When it has not come, and path is a FIFO, a
// writer opens and closes path until done comes (at most 5 s more): each
// open of it for reading (a hash, then a parse) then sees an empty file and
// returns. It reports whether done came within d; a device read for ever
// cannot be released.
func Within(path string, d time.Duration, done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-time.After(d):
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return false
	}
	for range 100 {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case <-done:
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false
}
