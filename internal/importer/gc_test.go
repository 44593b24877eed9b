package importer

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func gcSettings() (percent int64, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// TestGC: an ingest runs under heapCeiling (GOGC off, the limit set) and
// puts the previous settings back after; with the user's GOGC set nothing
// changes, and with the user's GOMEMLIMIT set the ingest runs at gcPercent
// under it. What gctune.Ceiling promises for the heap itself is its own
// package's test.
func TestGC(t *testing.T) {
	prevPercent := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}()
	restore := gc(func(string) string { return "" })
	if p, l := gcSettings(); p != -1 || l != heapCeiling {
		t.Errorf("during an ingest: GOGC %d, limit %d; want off and %d", p, l, heapCeiling)
	}
	restore()
	if p, l := gcSettings(); p != 100 || l != math.MaxInt64 {
		t.Errorf("after an ingest: GOGC %d, limit %d; want 100 and none back", p, l)
	}
	user := func(key string) func(string) string {
		return func(k string) string {
			if k == key {
				return "1"
			}
			return ""
		}
	}
	restore = gc(user("GOGC"))
	if p, l := gcSettings(); p != 100 || l != math.MaxInt64 {
		t.Errorf("with the user's GOGC set: GOGC %d, limit %d; want both untouched", p, l)
	}
	restore()
	restore = gc(user("GOMEMLIMIT"))
	if p, l := gcSettings(); p != gcPercent || l != math.MaxInt64 {
		t.Errorf("with the user's GOMEMLIMIT set: GOGC %d, limit %d; want %d under the user's limit", p, l, gcPercent)
	}
	restore()
}
