package gctune

import (
	"runtime/debug"
	"testing"
)

// TestSet: a stage runs at its percent and the previous GOGC comes back
// after; with the user's GOGC set, nothing changes. Checked for several
// percents and previous values, each read back from the runtime itself.
func TestSet(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	none := func(string) string { return "" }
	user := func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	}
	for _, prev := range []int{100, 50, 400} {
		for _, percent := range []int{70, 300, 25} {
			debug.SetGCPercent(prev)
			restore := Set(none, percent)
			if got := debug.SetGCPercent(percent); got != percent {
				t.Errorf("prev %d: GOGC during the stage = %d, want %d", prev, got, percent)
			}
			restore()
			if got := debug.SetGCPercent(prev); got != prev {
				t.Errorf("GOGC after the stage = %d, want %d back", got, prev)
			}
			Set(user, percent)()
			if got := debug.SetGCPercent(prev); got != prev {
				t.Errorf("with the user's GOGC set: %d, want it untouched (%d)", got, prev)
			}
		}
	}
}
