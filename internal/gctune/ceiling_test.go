package gctune

import (
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// read returns one runtime metric, which the runtime keeps itself: what
// these tests compare the stage's promises with.
func read(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func gogc() int64     { return int64(read("/gc/gogc:percent")) }
func memLimit() int64 { return int64(read("/gc/gomemlimit:bytes")) }

// settings puts the collector at Go's defaults for a test and back after.
func settings(t *testing.T) {
	t.Helper()
	prevPercent := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		held.Store(false) // a stage a failed test left open
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	})
}

func noEnv(string) string { return "" }

// churn allocates total bytes of garbage in pieces of random sizes, as a
// streaming stage does, and calls each after every piece.
func churn(rng *rand.Rand, total int, each func()) {
	var sink []byte
	for n := 0; n < total; n += len(sink) {
		sink = make([]byte, 1<<10+rng.IntN(64<<10))
		for i := range sink { // the work a parser does with what it allocates
			sink[i] = byte(i)
		}
		each()
	}
	runtime.KeepAlive(sink)
}

// TestCeilingHeld: generated stages (a ceiling of 32–64 MiB, a live heap
// up to 30 % of it, garbage three times the ceiling in pieces written as a
// parser writes what it allocates) stay under the ceiling for every
// collection they meet: GOGC off and the memory limit at the ceiling after
// each piece, collections did run (so the watch looked), and no fallback.
// What the ceiling does to the peak is the runtime's soft memory limit;
// make bench measures it on real imports.
func TestCeilingHeld(t *testing.T) {
	settings(t)
	rng := rand.New(rand.NewPCG(35, 1))
	for round := range 12 {
		ceiling := int64(32+rng.IntN(33)) << 20
		live := make([]byte, int(float64(ceiling)*0.3*rng.Float64()))
		live[len(live)-1] = 1
		debug.FreeOSMemory() // a stage starts as an ingest does, its heap small
		restore := Ceiling(noEnv, ceiling, 200)
		before := read("/gc/cycles/total:gc-cycles")
		churn(rng, int(3*ceiling), func() {
			if p, l := gogc(), memLimit(); p != -1 || l != ceiling {
				t.Fatalf("round %d: GOGC %d, limit %d with %d of a %d ceiling live (last marked %d); want off and the ceiling",
					round, p, l, len(live), ceiling, read("/gc/heap/live:bytes"))
			}
		})
		runtime.GC() // and the watch's look after it
		runtime.GC()
		if p, l := gogc(), memLimit(); p != -1 || l != ceiling {
			t.Fatalf("round %d: GOGC %d, limit %d at the end; want off and the ceiling", round, p, l)
		}
		if cycles := read("/gc/cycles/total:gc-cycles") - before; cycles < 3 {
			t.Fatalf("round %d: %d collections for %d bytes of garbage under a %d ceiling", round, cycles, 3*ceiling, ceiling)
		}
		restore()
		runtime.KeepAlive(live)
	}
}

// waitFor runs collections until cond holds or a few seconds have passed:
// the watch runs after a collection, on the runtime's cleanup goroutine.
func waitFor(cond func() bool) bool {
	for range 500 {
		if cond() {
			return true
		}
		runtime.GC()
		runtime.Gosched()
	}
	return cond()
}

// TestCeilingFallsBack: generated stages whose live heap passes three
// quarters of the ceiling (80–150 % of it) run at the fallback GOGC with the previous
// memory limit once a collection has seen it, and restore puts Go's
// defaults back; the fallback is not taken back when the live heap
// shrinks again.
func TestCeilingFallsBack(t *testing.T) {
	settings(t)
	rng := rand.New(rand.NewPCG(35, 2))
	for round := range 8 {
		ceiling := int64(16+rng.IntN(17)) << 20
		fallback := 50 + rng.IntN(400)
		restore := Ceiling(noEnv, ceiling, fallback)
		if gogc() != -1 || memLimit() != ceiling {
			t.Fatalf("round %d: GOGC %d, limit %d at the start, want off and %d", round, gogc(), memLimit(), ceiling)
		}
		live := make([]byte, int(float64(ceiling)*(0.8+0.7*rng.Float64())))
		live[len(live)-1] = 1
		if !waitFor(func() bool { return gogc() == int64(fallback) }) {
			t.Fatalf("round %d: live %d of ceiling %d: GOGC %d, limit %d; want the fallback %d",
				round, len(live), ceiling, gogc(), memLimit(), fallback)
		}
		if memLimit() != math.MaxInt64 {
			t.Fatalf("round %d: limit %d after the fallback, want the previous one (none)", round, memLimit())
		}
		runtime.KeepAlive(live)
		live = nil
		runtime.GC()
		runtime.GC()
		if gogc() != int64(fallback) || memLimit() != math.MaxInt64 {
			t.Fatalf("round %d: after the live heap shrank: GOGC %d, limit %d; want the fallback kept", round, gogc(), memLimit())
		}
		restore()
		if gogc() != 100 || memLimit() != math.MaxInt64 {
			t.Fatalf("round %d: after the stage: GOGC %d, limit %d; want 100 and none", round, gogc(), memLimit())
		}
	}
}

// TestCeilingRestore: whatever the settings before a stage (generated
// GOGC and limits), they are back after it, and a collection after the
// stage, which runs the watch's last cleanup, changes nothing.
func TestCeilingRestore(t *testing.T) {
	settings(t)
	rng := rand.New(rand.NewPCG(35, 3))
	for round := range 20 {
		percent := []int{-1, 50, 100, 300}[rng.IntN(4)]
		limit := int64(math.MaxInt64)
		if rng.IntN(2) == 0 {
			limit = int64(256+rng.IntN(1024)) << 20
		}
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
		restore := Ceiling(noEnv, int64(24+rng.IntN(40))<<20, 200)
		churn(rng, 8<<20, func() {})
		restore()
		restore() // a second call changes nothing
		for range 3 {
			runtime.GC()
		}
		if gogc() != int64(percent) || memLimit() != limit {
			t.Fatalf("round %d: GOGC %d, limit %d after the stage; want %d and %d back", round, gogc(), memLimit(), percent, limit)
		}
	}
}

// TestCeilingUserChoice: a GOGC the user set leaves everything alone; a
// GOMEMLIMIT the user set stays, and the stage runs at the fallback GOGC
// under it, as Set would.
func TestCeilingUserChoice(t *testing.T) {
	settings(t)
	debug.SetMemoryLimit(512 << 20) // as the runtime would have read GOMEMLIMIT=512MiB
	env := func(key string) func(string) string {
		return func(k string) string {
			if k == key {
				return "set"
			}
			return ""
		}
	}
	restore := Ceiling(env("GOGC"), 32<<20, 200)
	if gogc() != 100 || memLimit() != 512<<20 {
		t.Errorf("user's GOGC: GOGC %d, limit %d; want both untouched (100, 512 MiB)", gogc(), memLimit())
	}
	restore()
	restore = Ceiling(env("GOMEMLIMIT"), 32<<20, 200)
	if gogc() != 200 || memLimit() != 512<<20 {
		t.Errorf("user's GOMEMLIMIT: GOGC %d, limit %d; want the fallback 200 under the user's 512 MiB", gogc(), memLimit())
	}
	restore()
	if gogc() != 100 || memLimit() != 512<<20 {
		t.Errorf("after: GOGC %d, limit %d; want 100 and 512 MiB", gogc(), memLimit())
	}
}

// TestOverlappingStages: generated interleavings of two stages (ceilings
// and percents, started and ended in random order): while a stage holds
// the settings they are its own, a stage started meanwhile changes
// nothing, and once both ended Go's defaults are back.
func TestOverlappingStages(t *testing.T) {
	settings(t)
	rng := rand.New(rand.NewPCG(35, 4))
	start := func(i int) func() {
		if i == 0 {
			return Ceiling(noEnv, 40<<20, 200)
		}
		return Set(noEnv, 70)
	}
	for round := range 50 {
		first := rng.IntN(2)
		endFirst := start(first)
		endSecond := start(1 - first)
		wantPercent, wantLimit := int64(-1), int64(40<<20)
		if first == 1 {
			wantPercent, wantLimit = 70, math.MaxInt64
		}
		if gogc() != wantPercent || memLimit() != wantLimit {
			t.Fatalf("round %d: GOGC %d, limit %d with stage %d first; want its %d and %d", round, gogc(), memLimit(), first, wantPercent, wantLimit)
		}
		if rng.IntN(2) == 0 {
			endFirst, endSecond = endSecond, endFirst
		}
		endFirst()
		endSecond()
		if gogc() != 100 || memLimit() != math.MaxInt64 {
			t.Fatalf("round %d: GOGC %d, limit %d after both; want 100 and none", round, gogc(), memLimit())
		}
	}
}
