package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

// TestCoverMinutes: a sample covers the minutes after its own up to the
// sampling interval in whole minutes; a logger's clock drift of up to 2 % is
// not a longer interval (nvidia-smi -l 60 measures 60.018 s).
func TestCoverMinutes(t *testing.T) {
	for _, tt := range []struct {
		interval time.Duration
		want     int
	}{
		{15 * time.Second, 1},
		{time.Minute, 1},
		{60018 * time.Millisecond, 1}, // jitter, not a two-minute logger
		{61 * time.Second, 1},         // 1.7 %: still jitter
		{62 * time.Second, 2},         // 3.3 %: longer than a minute
		{2 * time.Minute, 2},
		{122 * time.Second, 2}, // 1.7 % over two minutes
		{125 * time.Second, 3},
		{time.Hour, maxCover},
		{0, 1},
	} {
		if got := coverMinutes(tt.interval); got != tt.want {
			t.Errorf("coverMinutes(%v) = %d, want %d", tt.interval, got, tt.want)
		}
	}
}

// TestGridJitter: a 60.018 s logger that missed one sample leaves that
// minute unmonitored (each sample covers its minute and the next only), where
// rounding 1.0003 minutes up to 2 would have filled the gap with a guess.
func TestGridJitter(t *testing.T) {
	// Samples in minutes 0, 1, 2, then none in 3 and 4, then 5.
	s := &finops.GPUSeries{Key: "g", Interval: 60018 * time.Millisecond}
	for _, m := range []int64{0, 1, 2, 5} {
		s.Add(m, 50)
	}
	g := buildGrid(timeline{t0: 0, n: 7}, s, 10, 30*time.Minute, gpuGrid{})
	// minute 3 is covered by minute 2's sample; 4 has none; 6 is covered by 5.
	for i, want := range []bool{true, true, true, true, false, true, true} {
		if got := !math.IsNaN(float64(g.util[i])); got != want {
			t.Errorf("minute %d monitored = %v, want %v", i, got, want)
		}
	}
}

// TestGridReuse: a grid laid on a finished resource's memory is the grid a
// fresh one would be. The spare held another GPU's minutes, active where this
// one is unmonitored and idle where this one is busy, so a minute left
// unwritten shows. Expectations by hand: samples of 5 in minutes 0–39 and
// 50 in 45–49, each also covering the minute after (a one-minute interval):
// util 5 in 0–40 (an idle run of 41 ≥ 30), none in 41–44, 50 in 45–50, none
// after.
func TestGridReuse(t *testing.T) {
	tl := timeline{t0: 0, n: 60}
	s := &finops.GPUSeries{Key: "g", Interval: time.Minute}
	for m := int64(0); m < 50; m++ {
		if m < 40 {
			s.Add(m, 5)
		} else if m >= 45 {
			s.Add(m, 50)
		}
	}
	other := &finops.GPUSeries{Key: "h", Interval: time.Minute}
	for m := int64(0); m < 60; m++ {
		other.Add(m, float64(60-m)) // active, then idle under 10 from minute 51
	}
	for _, tc := range []struct {
		name  string
		spare gpuGrid
	}{
		{"fresh", gpuGrid{}},
		{"spare of the same size", buildGrid(tl, other, 10, 5*time.Minute, gpuGrid{})},
		{"spare too short", buildGrid(timeline{t0: 0, n: 20}, other, 10, 5*time.Minute, gpuGrid{})},
		{"spare longer", buildGrid(timeline{t0: 0, n: 90}, other, 10, 5*time.Minute, gpuGrid{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGrid(tl, s, 10, 30*time.Minute, tc.spare)
			if len(g.util) != tl.n || len(g.class) != tl.n {
				t.Fatalf("grid of %d/%d minutes, want %d", len(g.util), len(g.class), tl.n)
			}
			for i := range tl.n {
				wantU, wantC := float32(math.NaN()), uint8(unmonitored)
				switch {
				case i <= 40:
					wantU, wantC = 5, idle
				case i >= 45 && i <= 50:
					wantU, wantC = 50, active
				}
				if u := g.util[i]; (u == u) != (wantU == wantU) || u == u && u != wantU || g.class[i] != wantC {
					t.Errorf("minute %d: util %v class %d, want %v %d", i, u, g.class[i], wantU, wantC)
				}
			}
		})
	}
}
