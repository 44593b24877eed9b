// Package gctune sets the Go collector's pace for one stage of a command (an
// ingest, the report's writing) and puts it back after; the user's GOGC,
// and for a heap ceiling the user's GOMEMLIMIT, always win. One rule, so the
// stages cannot disagree on when the user's setting applies.
package gctune

import (
	"runtime/debug"
	"sync/atomic"
)

// The collector's settings are the process's, not a stage's: two stages
// that overlapped (parallel tests ingesting in one process) would each put
// back what the other had set, and could leave a heap ceiling in place
// after both had ended. So one stage at a time holds them; a stage that
// starts while another holds them runs at the holder's settings and
// changes nothing. This flag is the only state the package keeps, and it
// is process-wide because what it guards is.
var held atomic.Bool

// Set sets GOGC to percent unless the user set GOGC (or another stage
// holds the settings), and returns what restores the previous value (a
// no-op when nothing was changed). A GOMEMLIMIT the user set stays in
// force beside it.
func Set(getenv func(string) string, percent int) (restore func()) {
	if getenv("GOGC") != "" || !held.CompareAndSwap(false, true) {
		return func() {}
	}
	prev := debug.SetGCPercent(percent)
	return func() {
		debug.SetGCPercent(prev)
		held.Store(false)
	}
}
