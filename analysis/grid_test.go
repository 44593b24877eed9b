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
	g := buildGrid(timeline{t0: 0, n: 7}, s, 10, 30*time.Minute)
	// minute 3 is covered by minute 2's sample; 4 has none; 6 is covered by 5.
	for i, want := range []bool{true, true, true, true, false, true, true} {
		if got := !math.IsNaN(float64(g.util[i])); got != want {
			t.Errorf("minute %d monitored = %v, want %v", i, got, want)
		}
	}
}
