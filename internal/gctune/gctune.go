// Package gctune sets the collector's GOGC for one stage of a command (an
// ingest, the report's writing) and puts it back after, unless the user set
// GOGC, whose choice always wins. One rule, so the stages cannot disagree
// on when the user's setting applies.
package gctune

import "runtime/debug"

// Set sets GOGC to percent unless getenv("GOGC") is set, and returns what
// restores the previous value (a no-op when nothing was changed).
func Set(getenv func(string) string, percent int) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(prev) }
}
