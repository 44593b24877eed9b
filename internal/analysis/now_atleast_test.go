package analysis

import (
	"math/rand"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

// nowOne is Now of one resource "a" on host gpu-a with gpus, at now.
func nowOne(t *testing.T, from, now time.Time, gpus []finops.GPUSeries) ResourceNow {
	t.Helper()
	in := &Input{
		Lines:     []finops.BillingLine{gpuLine("a", finops.ModeHourly, "8", from.Add(-2*time.Hour), now, len(gpus))},
		GPUs:      gpus,
		Resources: []Resource{{ID: "a", Hosts: []string{"gpu-a"}}},
		Params:    DefaultParams(),
	}
	got, _, err := Now(in, from, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d resources", len(got))
	}
	return got[0]
}

// TestNowIdleSinceAtLeast: an idle run with no busy minute before it in the
// telemetry read reaches back to the lookback's start, so the resource may
// have idled from earlier: "idle since at least" (issue 33, point 10). The
// lookback is 10:00–12:00; every case is read off its segments.
func TestNowIdleSinceAtLeast(t *testing.T) {
	from := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	now := from.Add(2 * time.Hour)
	gpu := func(i int, start time.Time, segs ...seg) finops.GPUSeries {
		s := series("gpu-a/"+string(rune('0'+i)), "gpu-a", start, segs...)
		s.Index = i
		return s
	}
	for _, tc := range []struct {
		name    string
		gpus    []finops.GPUSeries
		since   time.Time
		atLeast bool
	}{
		{"idle all the lookback: since its start, at least", []finops.GPUSeries{gpu(0, from, seg{120, 2})}, from, true},
		{"busy, then idle from 11:00: exact", []finops.GPUSeries{gpu(0, from, seg{60, 95}, seg{60, 2})}, from.Add(time.Hour), false},
		{"telemetry from 10:03, idle: since 10:03, at least", []finops.GPUSeries{gpu(0, from.Add(3*time.Minute), seg{117, 2})},
			from.Add(3 * time.Minute), true},
		{"one GPU idle all along, the other from 11:00: the later start, exact",
			[]finops.GPUSeries{gpu(0, from, seg{120, 2}), gpu(1, from, seg{60, 95}, seg{60, 2})}, from.Add(time.Hour), false},
		{"telemetry from 10:20, idle: since 10:20, exact (it starts there)", []finops.GPUSeries{gpu(0, from, seg{20, -1}, seg{100, 2})},
			from.Add(20 * time.Minute), false},
		{"telemetry from 10:05 (a 5-minute sampler's reach), idle: at least", []finops.GPUSeries{gpu(0, from, seg{5, -1}, seg{115, 2})},
			from.Add(5 * time.Minute), true},
		{"telemetry from 10:06, idle: exact", []finops.GPUSeries{gpu(0, from, seg{6, -1}, seg{114, 2})},
			from.Add(6 * time.Minute), false},
		{"busy, a gap, idle: exact (the gap is inside nothing)", []finops.GPUSeries{gpu(0, from, seg{10, 95}, seg{20, -1}, seg{90, 2})},
			from.Add(30 * time.Minute), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := nowOne(t, from, now, tc.gpus)
			if !got.IdleSince.Equal(tc.since) || got.IdleSinceAtLeast != tc.atLeast {
				t.Errorf("idle since %s (at least %v), want %s (%v)", got.IdleSince, got.IdleSinceAtLeast, tc.since, tc.atLeast)
			}
		})
	}
}

// TestNowIdleSinceAtLeastGenerated checks "at least" against what it
// claims, over random telemetry of one to three GPUs: whether the idle
// run reaches back past the lookback is found by showing the same GPUs
// idle for two more hours before it (the start moves earlier, or stays);
// "at least" must hold exactly when it does and the start is within a
// sampling interval (5 minutes) of the lookback's start. Both reads are of
// the same minutes but the added ones, so the check needs no copy of the
// rule's walk.
func TestNowIdleSinceAtLeastGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	from := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	now := from.Add(2 * time.Hour)
	utils := []float64{-1, 2, 5, 50, 95} // no sample, idle, idle, busy, busy
	counts := map[bool]int{}
	for c := 0; c < 400; c++ {
		n := 1 + rng.Intn(3)
		var segsOf [][]seg
		for range n {
			var segs []seg
			// The tail is idle more often than not, so that most cases
			// have an idle start to check.
			for left := 120; left > 0; {
				m := min(left, 1+rng.Intn(70))
				u := utils[rng.Intn(len(utils))]
				if left == m && rng.Intn(4) != 0 {
					u = 2
				}
				segs = append(segs, seg{m, u})
				left -= m
			}
			segsOf = append(segsOf, segs)
		}
		build := func(pre int) []finops.GPUSeries {
			var gpus []finops.GPUSeries
			for i, segs := range segsOf {
				all := segs
				if pre > 0 {
					all = append([]seg{{pre, 2}}, segs...)
				}
				s := series("gpu-a/"+string(rune('0'+i)), "gpu-a", from.Add(-time.Duration(pre)*time.Minute), all...)
				s.Index = i
				gpus = append(gpus, s)
			}
			return gpus
		}
		got := nowOne(t, from, now, build(0))
		if got.IdleSince.IsZero() {
			if got.IdleSinceAtLeast {
				t.Fatalf("case %d: at least without an idle start: %+v", c, segsOf)
			}
			continue
		}
		longer := nowOne(t, from.Add(-2*time.Hour), now, build(120))
		moved := longer.IdleSince.Before(got.IdleSince)
		want := moved && got.IdleSince.Sub(from) <= 5*time.Minute
		if want != got.IdleSinceAtLeast || !moved && !longer.IdleSince.Equal(got.IdleSince) {
			t.Fatalf("case %d %+v: idle since %s (at least %v); with two idle hours before, %s",
				c, segsOf, got.IdleSince, got.IdleSinceAtLeast, longer.IdleSince)
		}
		counts[got.IdleSinceAtLeast]++
	}
	if counts[true] < 20 || counts[false] < 20 {
		t.Errorf("the generator drew %d starts at least and %d exact: too few of one to check", counts[true], counts[false])
	}
}
