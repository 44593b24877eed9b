package importer

import (
	"runtime/debug"
	"testing"
)

// TestGC: an ingest runs at gcPercent and puts the previous GOGC back
// after; a GOGC the user set is left alone.
func TestGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	restore := gc(func(string) string { return "" })
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Errorf("GOGC during an ingest = %d, want %d", got, gcPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after an ingest = %d, want 100 back", got)
	}
	gc(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC with the user's GOGC set = %d, want it untouched (100)", got)
	}
}
