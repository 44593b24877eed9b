package main

import (
	"runtime/debug"
	"testing"
)

// TestIngestGC: an ingest runs at ingestGCPercent and puts the previous GOGC
// back after; a GOGC the user set is left alone.
func TestIngestGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	restore := ingestGC(func(string) string { return "" })
	if got := debug.SetGCPercent(ingestGCPercent); got != ingestGCPercent {
		t.Errorf("GOGC during an ingest = %d, want %d", got, ingestGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after an ingest = %d, want 100 back", got)
	}
	ingestGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC with the user's GOGC set = %d, want it untouched (100)", got)
	}
}
