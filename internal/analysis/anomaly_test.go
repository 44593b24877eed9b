package analysis

import (
	"testing"

	"github.com/finops-oss/finops/internal/testnum"
)

// TestAnomalyRule: outside [min, max] of the four weeks before, widened by
// max(half the spread, a tenth of the mean); fewer than four: no flag.
func TestAnomalyRule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		x     float64
		prior []float64
		want  string
	}{
		// range [90, 110], margin max(10, 10.125) = 10.125: up to 120.125.
		{"docs example above", 125, []float64{100, 110, 90, 105}, AnomalyHigh},
		{"docs example inside", 120, []float64{100, 110, 90, 105}, AnomalyNone},
		// down to 90 − 10.125 = 79.875.
		{"below", 79, []float64{100, 110, 90, 105}, AnomalyLow},
		{"just above the low end", 80, []float64{100, 110, 90, 105}, AnomalyNone},
		// flat 50: margin max(0, 5) = 5, up to 55.
		{"flat, 10 % up", 55, []float64{50, 50, 50, 50}, AnomalyNone},
		{"flat, 12 % up", 56, []float64{50, 50, 50, 50}, AnomalyHigh},
		// swinging 0 / 100: margin max(50, 5) = 50, range [−50, 150].
		{"swinging", 140, []float64{0, 100, 0, 100}, AnomalyNone},
		// only the last four count: 1000 is five weeks back.
		{"last four only", 125, []float64{1000, 100, 110, 90, 105}, AnomalyHigh},
		// nothing spent before: any spend now is new.
		{"new spend", 0.01, []float64{0, 0, 0, 0}, AnomalyHigh},
		{"still nothing", 0, []float64{0, 0, 0, 0}, AnomalyNone},
		{"three weeks", 1000, []float64{1, 1, 1}, AnomalyNoHist},
		{"no weeks", 0, nil, AnomalyNoHist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := anomaly(tc.x, tc.prior); got != tc.want {
				t.Errorf("anomaly(%v, %v) = %s, want %s", tc.x, tc.prior, got, tc.want)
			}
		})
	}
}

// TestMovers: the last week against the mean of the weeks with cost among
// the four before (how many, BaselineWeeks); the top
// movers by absolute money, unchanged ones left out.
func TestMovers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		x        float64
		prior    []float64
		nil      bool
		mean     float64
		weeks    int // BaselineWeeks
		change   float64
		pct      float64
		pctIsNil bool
	}{
		// mean (100+110+90+100)/4 = 100: +23, +23 %.
		{name: "up 23 %", x: 123, prior: []float64{100, 110, 90, 100}, mean: 100, weeks: 4, change: 23, pct: 0.23},
		// mean (80+80+120+120)/4 = 100: −40, −40 %.
		{name: "down", x: 60, prior: []float64{80, 80, 120, 120}, mean: 100, weeks: 4, change: -40, pct: -0.4},
		// the fifth week back does not count: mean 20.
		{name: "four weeks only", x: 30, prior: []float64{1000, 20, 20, 20, 20}, mean: 20, weeks: 4, change: 10, pct: 0.5},
		{name: "from nothing", x: 30, prior: []float64{0, 0, 0, 0}, mean: 0, change: 30, pctIsNil: true},
		// started two weeks ago: mean (40+50)/2 = 45 over 2 weeks, not
		// (0+0+40+50)/4 = 22.5: −5, −11.1 %.
		{name: "new two weeks ago", x: 40, prior: []float64{0, 0, 40, 50}, mean: 45, weeks: 2, change: -5, pct: -5.0 / 45},
		// a gap week counts for nothing: mean (60+120+90)/3 = 90 over 3: +30, +33.3 %.
		{name: "gap", x: 120, prior: []float64{60, 0, 120, 90}, mean: 90, weeks: 3, change: 30, pct: 30.0 / 90},
		// stopped: 0 this week against (10+20)/2 = 15 over 2: −15, −100 %.
		{name: "stopped", x: 0, prior: []float64{10, 20, 0, 0}, mean: 15, weeks: 2, change: -15, pct: -1},
		{name: "three weeks", x: 30, prior: []float64{1, 2, 3}, nil: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mover(MoverTeam, "ml", "", tc.x, tc.prior)
			if tc.nil {
				if m != nil {
					t.Fatalf("mover %+v, want none", m)
				}
				return
			}
			if m == nil {
				t.Fatal("no mover")
			}
			testnum.NearRel(t, "mean", m.Mean, tc.mean, 1e-6)
			if m.BaselineWeeks != tc.weeks {
				t.Errorf("mean over %d weeks, want %d", m.BaselineWeeks, tc.weeks)
			}
			testnum.NearRel(t, "change", m.Change, tc.change, 1e-6)
			if tc.pctIsNil != (m.ChangePct == nil) {
				t.Fatalf("change %% %v, want nil %v", m.ChangePct, tc.pctIsNil)
			}
			if m.ChangePct != nil {
				testnum.NearRel(t, "change %", *m.ChangePct, tc.pct, 1e-6)
			}
		})
	}

	ms := []Mover{
		{Kind: MoverTeam, Name: "ml", Change: -70},
		{Kind: MoverTeam, Name: "infra", Change: 0},
		{Kind: MoverResource, Name: "gpu-a", Change: 70},
		{Kind: MoverTeam, Name: "research", Change: 70},
		{Kind: MoverResource, Name: "gpu-b", Change: 5},
		{Kind: MoverResource, Name: "gpu-c", Change: -10},
	}
	// |70| three times: the team first, then by name; infra (0) left out.
	want := []string{"ml", "research", "gpu-a", "gpu-c"}
	got := topMovers(ms, 4)
	if len(got) != len(want) {
		t.Fatalf("top movers %+v, want %v", got, want)
	}
	for i, n := range want {
		if got[i].Name != n {
			t.Errorf("top mover %d is %s, want %s", i, got[i].Name, n)
		}
	}
}
