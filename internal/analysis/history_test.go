package analysis

import (
	"context"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// trendFleet is a fleet billed week by week from Mon Oct 19 2026 (2026-W43)
// up to end, a Monday, in UTC. Two resources of one A100 each:
//
//	gpu-a (team infra): 100, 110, 90, 100, 160 in W43 … W47;
//	gpu-b (team ml):    50 every week.
//
// GPU-A reports 90 % busy all along but two idle runs at 2 %: 35 minutes
// from Sun Nov 8 23:35, across the start of W46, and all of Mon Nov 16 (the
// first day of W47). GPU-B reports from Mon Nov 2 (W45) on, 80 % busy.
// Task infer (team ml, unit "1k requests") holds gpu-b for all of W46 with
// 250 units and all of W47 with 500. The lookback is three weeks.
func trendFleet(end time.Time, weeks int) *Input {
	w43 := time.Date(2026, 10, 19, 0, 0, 0, 0, time.UTC)
	costA := []string{"100", "110", "90", "100", "160"}
	var lines []finops.BillingLine
	for k := 0; w43.AddDate(0, 0, 7*k).Before(end); k++ {
		s, e := w43.AddDate(0, 0, 7*k), w43.AddDate(0, 0, 7*k+7)
		lines = append(lines, gpuLine("gpu-a", finops.ModeHourly, costA[k], s, e, 1),
			gpuLine("gpu-b", finops.ModeHourly, "50", s, e, 1))
	}
	// GPU-A's minutes from Oct 19, cut at end.
	nov8 := time.Date(2026, 11, 8, 23, 35, 0, 0, time.UTC)
	nov16 := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	var segA []seg
	left := int(end.Sub(w43) / time.Minute)
	for _, sg := range []seg{{int(nov8.Sub(w43) / time.Minute), 90}, {35, 2},
		{int(nov16.Sub(nov8)/time.Minute) - 35, 90}, {1440, 2}, {left, 90}} {
		sg.minutes = min(sg.minutes, left)
		segA, left = append(segA, sg), left-sg.minutes
	}
	nov2 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	gpus := []finops.GPUSeries{series("GPU-A", "gpu-a", w43, segA...),
		series("GPU-B", "gpu-b", nov2, seg{int(end.Sub(nov2) / time.Minute), 80})}
	var runs []finops.TaskRun
	for _, r := range []struct {
		start time.Time
		units string
	}{{time.Date(2026, 11, 9, 0, 0, 0, 0, time.UTC), "250"}, {nov16, "500"}} {
		if r.start.Before(end) {
			runs = append(runs, finops.TaskRun{Task: "infer", Team: "ml", Kind: "inference", Resource: "gpu-b",
				Start: r.start, End: r.start.AddDate(0, 0, 7), Units: dec(r.units), Unit: "1k requests"})
		}
	}
	p := DefaultParams()
	p.TrendWeeks = weeks
	return &Input{
		Window:    Window{Start: end.AddDate(0, 0, -7), End: end},
		Lookback:  Window{Start: end.AddDate(0, 0, -21), End: end},
		Lines:     lines,
		GPUs:      gpus,
		TaskRuns:  runs,
		Resources: []Resource{{ID: "gpu-a", Team: "infra"}, {ID: "gpu-b", Team: "ml"}},
		Teams:     []Team{{Name: "infra"}, {Name: "ml"}},
		Params:    p,
	}
}

var nov23 = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

// TestTrendHistoryFleet: the report of W47 with six weeks of history.
// By hand:
//
//	W42 (Oct 12–19) ends before the first line (Oct 19): absent.
//	totals W43…W47: 150, 160, 140, 150, 210; idle (gpu-a's minute costs
//	  cost / 10,080 minutes): W43, W44 0; W45 0: a report of W45 sees only
//	  the run's first 25 minutes, under the 30 an idle run needs; W46 its 10 minutes after,
//	  idle because the run began in W45, 10 × 100 / 10080 = 0.099206349;
//	  W47 the idle day, 160 / 7 = 22.857142857.
//	coverage: W43, W44 half the billed GPU-hours (GPU-B silent): 0.5,
//	  under 0.8, so idle is a lower bound; 1 from W45 on.
//	ml's unit cost: infer holds gpu-b all week, 50 per week: W46 50 / 250 =
//	  0.2, W47 50 / 500 = 0.1 per 1k requests.
//	movers (W47 against the mean of W43…W46):
//	  total: mean (150+160+140+150)/4 = 150, change +60, +40 %;
//	  infra and gpu-a: mean (100+110+90+100)/4 = 100, +60, +60 %;
//	  ml and gpu-b: mean 50, change 0, 0 %: no top mover.
//	flags: only W47 has four weeks before it.
//	  total: range [140, 160], margin max(20/2, 150/10) = 15: 210 > 175, above;
//	  infra: range [90, 110], margin max(10, 10) = 10: 160 > 120, above;
//	  ml: range [50, 50], margin max(0, 5) = 5: 50 in range.
func TestTrendHistoryFleet(t *testing.T) {
	res, err := Analyze(trendFleet(nov23, 6))
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trend
	if tr == nil {
		t.Fatal("no trend")
	}
	if tr.WeeksAsked != 6 || len(tr.AbsentWeeks) != 1 || tr.AbsentWeeks[0] != "2026-W42" {
		t.Fatalf("weeks asked %d, absent %v; want 6 and [2026-W42]", tr.WeeksAsked, tr.AbsentWeeks)
	}
	want := []trendWeekWant{
		{"2026-W43", 150, 0, 0.5, true, 100, 50, 0, AnomalyNoHist, AnomalyNoHist},
		{"2026-W44", 160, 0, 0.5, true, 110, 50, 0, AnomalyNoHist, AnomalyNoHist},
		{"2026-W45", 140, 0, 1, false, 90, 50, 0, AnomalyNoHist, AnomalyNoHist},
		{"2026-W46", 150, 10 * 100.0 / 10080, 1, false, 100, 50, 0.2, AnomalyNoHist, AnomalyNoHist},
		{"2026-W47", 210, 160.0 / 7, 1, false, 160, 50, 0.1, AnomalyHigh, AnomalyHigh},
	}
	if len(tr.Weeks) != len(want) {
		t.Fatalf("%d weeks, want %d", len(tr.Weeks), len(want))
	}
	for i, w := range want {
		checkTrendWeek(t, i, tr.Weeks[i], w)
	}
	if last := tr.Weeks[4].Teams; len(last) != 2 || last[1].Team != "ml" || last[1].Anomaly != AnomalyNone {
		t.Errorf("W47 teams %+v, want ml in range", last)
	}
	checkTrendMovers(t, tr)
}

// trendWeekWant is one week of TestTrendHistoryFleet worked by hand.
type trendWeekWant struct {
	label          string
	cost, idle     float64
	coverage       float64
	lower          bool
	infra, ml      float64
	mlUnit         float64 // 0: none
	total, infraFl string
}

// checkTrendWeek compares week i of the trend with the one worked by hand:
// totals, the teams' costs and flags, ml's unit cost and the resources.
func checkTrendWeek(t *testing.T, i int, got TrendWeek, w trendWeekWant) {
	t.Helper()
	if got.Label != w.label || got.IdleLowerBound != w.lower || got.Anomaly != w.total {
		t.Errorf("week %d: %s lower bound %v anomaly %s; want %s %v %s", i, got.Label, got.IdleLowerBound,
			got.Anomaly, w.label, w.lower, w.total)
	}
	testnum.NearRel(t, w.label+" cost", got.Cost, w.cost, 1e-6)
	testnum.NearRel(t, w.label+" idle", got.IdleCost, w.idle, 1e-6)
	testnum.NearRel(t, w.label+" coverage", got.Coverage, w.coverage, 1e-6)
	teams := map[string]TrendTeam{}
	for _, tt := range got.Teams {
		teams[tt.Team] = tt
	}
	testnum.NearRel(t, w.label+" infra", teams["infra"].Cost, w.infra, 1e-6)
	testnum.NearRel(t, w.label+" ml", teams["ml"].Cost, w.ml, 1e-6)
	if teams["infra"].Anomaly != w.infraFl {
		t.Errorf("%s infra anomaly %s, want %s", w.label, teams["infra"].Anomaly, w.infraFl)
	}
	if uc := teams["ml"].UnitCosts; w.mlUnit == 0 && len(uc) != 0 {
		t.Errorf("%s ml unit costs %+v, want none", w.label, uc)
	} else if w.mlUnit != 0 {
		if len(uc) != 1 || uc[0].Unit != "1k requests" {
			t.Fatalf("%s ml unit costs %+v, want one per 1k requests", w.label, uc)
		}
		testnum.NearRel(t, w.label+" ml unit cost", uc[0].UnitCost, w.mlUnit, 1e-6)
	}
	if len(got.Resources) != 2 {
		t.Errorf("%s: %d resources, want 2", w.label, len(got.Resources))
	}
}

// checkTrendMovers checks W47's movers, by hand: the total, infra and
// gpu-a moved by +60, ml not at all.
func checkTrendMovers(t *testing.T, tr *Trend) {
	t.Helper()
	if !tr.EnoughHistory || tr.TotalMover == nil {
		t.Fatal("W47 has four weeks before it: want movers")
	}
	testnum.NearRel(t, "total mean", tr.TotalMover.Mean, 150, 1e-6)
	testnum.NearRel(t, "total change", tr.TotalMover.Change, 60, 1e-6)
	testnum.NearRel(t, "total change %", *tr.TotalMover.ChangePct, 0.4, 1e-6)
	if len(tr.TopMovers) != 2 || tr.TopMovers[0].Name != "infra" || tr.TopMovers[1].Name != "gpu-a" ||
		tr.TopMovers[1].Team != "infra" {
		t.Fatalf("top movers %+v, want infra then gpu-a", tr.TopMovers)
	}
	testnum.NearRel(t, "infra change", tr.TopMovers[0].Change, 60, 1e-6)
	testnum.NearRel(t, "infra change %", *tr.TopMovers[0].ChangePct, 0.6, 1e-6)
	if len(tr.TeamMovers) != 2 || tr.TeamMovers[1].Name != "ml" || tr.TeamMovers[1].Change != 0 {
		t.Errorf("team movers %+v, want infra then ml unchanged", tr.TeamMovers)
	}
}

// TestTrendWeekIsItsOwnReport: the history's W46 in W47's report holds what
// W46's own report says, from W46's own data (lines, telemetry and tasks up
// to Nov 16) and its own three-week lookback.
func TestTrendWeekIsItsOwnReport(t *testing.T) {
	res, err := Analyze(trendFleet(nov23, 8))
	if err != nil {
		t.Fatal(err)
	}
	nov16 := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	own, err := Analyze(trendFleet(nov16, 0))
	if err != nil {
		t.Fatal(err)
	}
	var w46 *TrendWeek
	for i := range res.Trend.Weeks {
		if res.Trend.Weeks[i].Label == "2026-W46" {
			w46 = &res.Trend.Weeks[i]
		}
	}
	if w46 == nil || !w46.Start.Equal(own.Period.Start) || !w46.End.Equal(own.Period.End) {
		t.Fatalf("W46 %+v, want the own report's period %v", w46, own.Period)
	}
	// Its own report, by hand: cost 100 + 50; idle the 10 minutes of the
	// run begun in W45, 10 × 100 / 10080 (TestTrendHistoryFleet).
	testnum.NearRel(t, "own report's cost", own.Totals.Cost, 150, 1e-6)
	testnum.NearRel(t, "own report's idle", own.Totals.IdleCost, 10*100.0/10080, 1e-6)
	testnum.NearRel(t, "cost", w46.Cost, own.Totals.Cost, 1e-6)
	testnum.NearRel(t, "idle", w46.IdleCost, own.Totals.IdleCost, 1e-6)
	testnum.NearRel(t, "coverage", w46.Coverage, own.DataQuality.Coverage, 1e-6)
	if len(w46.Teams) != len(own.ByTeam) {
		t.Fatalf("W46 teams %+v, own report's %+v", w46.Teams, own.ByTeam)
	}
	for i, tc := range own.ByTeam {
		got := w46.Teams[i]
		if got.Team != tc.Team {
			t.Fatalf("W46 team %d is %s, own report's %s", i, got.Team, tc.Team)
		}
		testnum.NearRel(t, tc.Team+" cost", got.Cost, tc.Cost, 1e-6)
		testnum.NearRel(t, tc.Team+" idle", got.IdleCost, tc.IdleCost, 1e-6)
	}
	for i, rc := range own.ByResource {
		got := w46.Resources[i]
		if got.ResourceID != rc.ResourceID {
			t.Fatalf("W46 resource %d is %s, own report's %s", i, got.ResourceID, rc.ResourceID)
		}
		testnum.NearRel(t, rc.ResourceID+" cost", got.Cost, rc.Cost, 1e-6)
		testnum.NearRel(t, rc.ResourceID+" idle", got.IdleCost, rc.IdleCost, 1e-6)
	}
}

// TestTrendWeeks: the history's weeks are whole weeks in the report zone
// ending at the last local Monday at or before the window's end.
func TestTrendWeeks(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		end        time.Time
		loc        *time.Location
		first      string
		firstStart time.Time
		lastEnd    time.Time
	}{
		// W47 in UTC: its week and the two before.
		{"ISO week", nov23, time.UTC, "2026-W45", time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), nov23},
		// A window ending Wednesday Nov 25: the last whole week ends Mon Nov 23.
		{"mid-week end", nov23.AddDate(0, 0, 2), time.UTC, "2026-W45", time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), nov23},
		// Berlin: Mon Oct 26 00:00 CET is Oct 25 23:00 UTC; the week
		// before holds the switch from summer time (Oct 25), 169 hours.
		{"DST in Berlin", time.Date(2026, 11, 8, 23, 0, 0, 0, time.UTC), berlin, "2026-W43",
			time.Date(2026, 10, 18, 22, 0, 0, 0, time.UTC), time.Date(2026, 11, 8, 23, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := HistoryWeeks(Window{Start: tc.end.AddDate(0, 0, -7), End: tc.end}, 3, tc.loc)
			if len(ws) != 3 || ws[0].Label != tc.first || !ws[0].Start.Equal(tc.firstStart) || !ws[2].End.Equal(tc.lastEnd) {
				t.Fatalf("weeks %+v, want from %s (%v) to %v", ws, tc.first, tc.firstStart, tc.lastEnd)
			}
			for i := 1; i < 3; i++ {
				if !ws[i].Start.Equal(ws[i-1].End) {
					t.Errorf("week %d starts %v, not where week %d ends (%v)", i, ws[i].Start, i-1, ws[i-1].End)
				}
			}
		})
	}
}

// TestTrendForTeam: a lead's slice of TestTrendHistoryFleet's history holds
// the team's figures as its weeks' totals, its resources only, and its
// movers.
func TestTrendForTeam(t *testing.T) {
	res, err := Analyze(trendFleet(nov23, 6))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		team      string
		costs     []float64 // W43…W47
		coverage  float64   // W43
		resource  string
		lastFlag  string
		change    float64
		topMovers int
	}{
		// infra: gpu-a's 100, 110, 90, 100, 160, always monitored; +60
		// against the mean 100 (team and resource both move).
		{"infra", []float64{100, 110, 90, 100, 160}, 1, "gpu-a", AnomalyHigh, 60, 2},
		// ml: 50 a week, GPU-B silent before W45 (coverage 0); no move.
		{"ML", []float64{50, 50, 50, 50, 50}, 0, "gpu-b", AnomalyNone, 0, 0},
	} {
		t.Run(tc.team, func(t *testing.T) {
			tr := res.ForTeam(tc.team).Trend
			if len(tr.Weeks) != len(tc.costs) {
				t.Fatalf("%d weeks, want %d", len(tr.Weeks), len(tc.costs))
			}
			for i, w := range tr.Weeks {
				testnum.NearRel(t, w.Label+" cost", w.Cost, tc.costs[i], 1e-6)
				if len(w.Teams) != 1 || len(w.Resources) != 1 || w.Resources[0].ResourceID != tc.resource {
					t.Errorf("%s: teams %+v resources %+v, want the team's only", w.Label, w.Teams, w.Resources)
				}
			}
			testnum.NearRel(t, "W43 coverage", tr.Weeks[0].Coverage, tc.coverage, 1e-6)
			if tr.Weeks[0].IdleLowerBound != (tc.coverage < 0.8) {
				t.Errorf("W43 idle lower bound %v at coverage %v", tr.Weeks[0].IdleLowerBound, tc.coverage)
			}
			if got := tr.Weeks[4].Anomaly; got != tc.lastFlag {
				t.Errorf("W47 anomaly %s, want %s", got, tc.lastFlag)
			}
			if tr.TotalMover == nil {
				t.Fatal("no mover")
			}
			testnum.NearRel(t, "change", tr.TotalMover.Change, tc.change, 1e-6)
			if len(tr.TopMovers) != tc.topMovers {
				t.Errorf("top movers %+v, want %d", tr.TopMovers, tc.topMovers)
			}
		})
	}
}

// TestTrendStopped: a team that spent 10 a week for four weeks and nothing
// in the fifth gets a row of 0 there, flagged below its range [10, 10]
// − max(0, 1), and moves −10 (−100 %); a team that stopped five weeks
// before gets none.
func TestTrendStopped(t *testing.T) {
	week := func(teams ...TrendTeam) TrendWeek { return TrendWeek{Teams: teams} }
	tr := &Trend{Weeks: []TrendWeek{
		week(TrendTeam{Team: "a", Cost: 10}, TrendTeam{Team: "old", Cost: 5}),
		week(TrendTeam{Team: "a", Cost: 10}),
		week(TrendTeam{Team: "a", Cost: 10}),
		week(TrendTeam{Team: "a", Cost: 10}),
		week(TrendTeam{Team: "a", Cost: 10}),
		week(),
	}}
	flagTrend(tr)
	last := tr.Weeks[5]
	if len(last.Teams) != 1 || last.Teams[0].Team != "a" || last.Teams[0].Anomaly != AnomalyLow {
		t.Fatalf("last week's teams %+v, want a alone, below range", last.Teams)
	}
	if tr.Weeks[1].Teams[1].Team != "old" || tr.Weeks[1].Teams[1].Anomaly != AnomalyNoHist {
		t.Errorf("week 1 teams %+v, want old's row of 0 (one week before it)", tr.Weeks[1].Teams)
	}
	if len(tr.TeamMovers) != 2 || tr.TeamMovers[0].Name != "a" || tr.TeamMovers[0].Change != -10 ||
		*tr.TeamMovers[0].ChangePct != -1 {
		t.Errorf("team movers %+v, want a −10, −100 %%", tr.TeamMovers)
	}
}

// TestTrendPartialFirstWeek: the first bill starts on Wednesday Oct 21, in
// W43. W43 holds a billing line, so it is present (docs/METRICS.md §Trend:
// a week with any billing is never absent); only W42, wholly before the
// data, is absent. W43's lines of the fleet are replaced by gpu-a's 71.43
// from Oct 21, so by hand (W47 against W43…W46):
//
//	total: W43 71.43, W44 160, W45 140, W46 150: mean 521.43 / 4 = 130.3575
//	  over 4 weeks; W47 210, change 79.6425.
//	gpu-a: 71.43, 110, 90, 100: mean 371.43 / 4 = 92.8575 over 4 weeks;
//	  W47 160, change 67.1425.
//	gpu-b (and team ml): nothing in W43, 50 in W44…W46: mean 150 / 3 = 50
//	  over 3 weeks (W43 is not a week of 0 for it); W47 50, change 0.
func TestTrendPartialFirstWeek(t *testing.T) {
	in := trendFleet(nov23, 6)
	in.GPUs, in.TaskRuns = nil, nil
	in.Lines = append(in.Lines[2:], gpuLine("gpu-a", finops.ModeHourly, "71.43",
		time.Date(2026, 10, 21, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC), 1))
	res, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trend
	if len(tr.AbsentWeeks) != 1 || tr.AbsentWeeks[0] != "2026-W42" || len(tr.Weeks) != 5 || tr.Weeks[0].Label != "2026-W43" {
		t.Fatalf("absent %v, weeks from %s (%d); want W42 absent, W43 to W47", tr.AbsentWeeks, tr.Weeks[0].Label, len(tr.Weeks))
	}
	testnum.NearRel(t, "W43 cost", tr.Weeks[0].Cost, 71.43, 1e-6)
	if !tr.EnoughHistory || tr.TotalMover == nil {
		t.Fatalf("enough history %v, mover %+v; want movers: W43…W46 are before W47", tr.EnoughHistory, tr.TotalMover)
	}
	for _, c := range []struct {
		name         string
		m            *Mover
		mean, change float64
		weeks        int
	}{
		{"total", tr.TotalMover, 130.3575, 79.6425, 4},
		{"gpu-a", findMover(tr.ResourceMovers, "gpu-a"), 92.8575, 67.1425, 4},
		{"gpu-b", findMover(tr.ResourceMovers, "gpu-b"), 50, 0, 3},
		{"ml", findMover(tr.TeamMovers, "ml"), 50, 0, 3},
	} {
		if c.m == nil {
			t.Errorf("%s: no mover", c.name)
			continue
		}
		testnum.NearRel(t, c.name+" mean", c.m.Mean, c.mean, 1e-6)
		testnum.NearRel(t, c.name+" change", c.m.Change, c.change, 1e-6)
		if c.m.BaselineWeeks != c.weeks {
			t.Errorf("%s: mean over %d weeks, want %d", c.name, c.m.BaselineWeeks, c.weeks)
		}
	}
}

// findMover is the mover named name in ms, or nil.
func findMover(ms []Mover, name string) *Mover {
	for i := range ms {
		if ms[i].Name == name {
			return &ms[i]
		}
	}
	return nil
}

// TestTrendOutlinesLoadTheirWeeks: with outlines, each week of the history
// reads its GPUs' minutes over its own lookback and week only (plus the six
// minutes a sample before may reach), and the history is the one the held
// minutes give.
func TestTrendOutlinesLoadTheirWeeks(t *testing.T) {
	held, err := Analyze(trendFleet(nov23, 6))
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	in := outlined(t, trendFleet(nov23, 6), &loads)
	full := trendFleet(nov23, 6).GPUs
	var ranges []Window
	in.LoadSeriesRange = func(_ context.Context, o *finops.GPUSeries, from, to time.Time) (finops.GPUSeries, error) {
		ranges = append(ranges, Window{Start: from, End: to})
		for _, g := range full {
			if g.Key == o.Key {
				cut := finops.GPUSeries{Key: g.Key, Host: g.Host, Index: g.Index, Interval: g.Interval}
				for m, u := range g.All() {
					if m >= from.Unix()/60 && m < to.Unix()/60 {
						cut.Add(m, float64(u))
					}
				}
				return cut, nil
			}
		}
		return finops.GPUSeries{}, nil
	}
	res, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	// W43 … W46 (W47 is the report's own window, loaded whole by LoadSeries):
	// GPU-A each week, GPU-B from W45, when it first reports (before, a
	// report of the week would not know it): 1 + 1 + 2 + 2 loads, each of 3
	// weeks of lookback and 6 minutes before the week's end.
	if len(ranges) != 6 {
		t.Fatalf("%d range loads, want 6: %v", len(ranges), ranges)
	}
	for _, r := range ranges {
		if want := 21*24*time.Hour + 6*time.Minute; r.End.Sub(r.Start) != want || r.End.Weekday() != time.Monday {
			t.Errorf("loaded %v to %v, want %v ending a week", r.Start, r.End, want)
		}
	}
	for i, w := range held.Trend.Weeks {
		got := res.Trend.Weeks[i]
		testnum.NearRel(t, w.Label+" cost", got.Cost, w.Cost, 1e-6)
		testnum.NearRel(t, w.Label+" idle", got.IdleCost, w.IdleCost, 1e-6)
		testnum.NearRel(t, w.Label+" coverage", got.Coverage, w.Coverage, 1e-6)
	}
}

// TestTrendWeeksGroupNothing: with group_by set, the report window still
// allocates its cost, and the history's weeks, the previous window and the
// month to date, which show no allocation, add no line to groups; the
// weeks' figures are those without group_by.
func TestTrendWeeksGroupNothing(t *testing.T) {
	plain, err := Analyze(trendFleet(nov23, 8))
	if err != nil {
		t.Fatal(err)
	}
	in := trendFleet(nov23, 8)
	in.Params.GroupBy = []string{"provider"}
	h, err := newHistory(in, in.Window, withDefaults(in.Params))
	if err != nil {
		t.Fatal(err)
	}
	prev, month, err := trendAnalyses(in, withDefaults(in.Params))
	if err != nil {
		t.Fatal(err)
	}
	if prev == nil || month == nil {
		t.Fatalf("previous window %v, month to date %v: want both", prev, month)
	}
	for _, wa := range append(h.analyses(), prev, month) {
		if wa != nil && len(wa.a.p.GroupBy) > 0 {
			t.Fatalf("an analysis other than the report window's (%v) groups by %v", wa.a.in.Window, wa.a.p.GroupBy)
		}
	}
	res, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	// W47's cost by provider, by hand (trendFleet): every line is
	// TestCloud's, gpu-a 160 + gpu-b 50 = 210.
	if a := res.Allocation; len(a) != 1 || len(a[0].Groups) != 1 || a[0].Groups[0].Value != "TestCloud" {
		t.Fatalf("allocations %+v, want TestCloud's one group", a)
	}
	testnum.NearRel(t, "TestCloud", res.Allocation[0].Groups[0].Cost, 210, 1e-6)
	if len(res.Trend.Weeks) != len(plain.Trend.Weeks) {
		t.Fatalf("%d weeks, %d without group_by", len(res.Trend.Weeks), len(plain.Trend.Weeks))
	}
	for i, w := range res.Trend.Weeks {
		p := plain.Trend.Weeks[i]
		testnum.NearRel(t, w.Label+" cost", w.Cost, p.Cost, 1e-6)
		testnum.NearRel(t, w.Label+" idle", w.IdleCost, p.IdleCost, 1e-6)
	}
}
