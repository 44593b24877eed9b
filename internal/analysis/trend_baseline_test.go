package analysis

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// The trend's two rules about which weeks count (docs/METRICS.md §Trend):
// a mover's baseline is the mean of only the weeks it had cost among the
// four before the last, and a week with any billing is never absent.

// weekLine bills res cost over [start, end) as one hourly line.
func weekLine(res, cost string, start, end time.Time) finops.BillingLine {
	return gpuLine(res, finops.ModeHourly, cost, start, end, 1)
}

// baselineFleet is a fleet of resources and teams billed by the week, for a
// report of the week ending at end with weeks of history.
func baselineFleet(end time.Time, weeks int, lines []finops.BillingLine, res []Resource, teams []Team) *Input {
	p := DefaultParams()
	p.TrendWeeks = weeks
	return &Input{
		Window:    Window{Start: end.AddDate(0, 0, -7), End: end},
		Lookback:  Window{Start: end.AddDate(0, 0, -21), End: end},
		Lines:     lines,
		Resources: res,
		Teams:     teams,
		Params:    p,
	}
}

// TestMoverBaselineNewResource is the case: resources that started
// in W43 read "+33 % vs the 4-week mean" in W46's report, W42 counted as
// ¥0, beside "+0.0 %" week over week. By hand, for the report of W46
// (Nov 9–16 2026) with 6 weeks of history (W41…W46):
//
//	old (team a): 100 a week from W41: mean of W42…W45 (100 × 4) / 4 = 100
//	  over 4 weeks, W46 100: change 0.
//	new (team b): 30 a week from W43 (Oct 19): W42 had no cost, so the
//	  mean is of W43…W45 only, (30 × 3) / 3 = 30 over 3 weeks; W46 30:
//	  change 0, +0 % (today's code: (0 + 30 × 3) / 4 = 22.5, +33 %).
//	team b is new's alone: the same, 30 over 3 weeks.
//	total: W42 100, W43…W45 130: mean (100 + 390) / 4 = 122.5 over 4 weeks;
//	  W46 130, change 7.5.
func TestMoverBaselineNewResource(t *testing.T) {
	w41 := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	var lines []finops.BillingLine
	for k := range 6 {
		s, e := w41.AddDate(0, 0, 7*k), w41.AddDate(0, 0, 7*k+7)
		lines = append(lines, weekLine("old", "100", s, e))
		if k >= 2 {
			lines = append(lines, weekLine("new", "30", s, e))
		}
	}
	end := w41.AddDate(0, 0, 42)
	in := baselineFleet(end, 6, lines, []Resource{{ID: "old", Team: "a"}, {ID: "new", Team: "b"}},
		[]Team{{Name: "a"}, {Name: "b"}})
	res, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trend
	if tr == nil || !tr.EnoughHistory {
		t.Fatalf("trend %+v: want movers", tr)
	}
	for _, c := range []struct {
		name         string
		m            *Mover
		mean, change float64
		weeks        int
	}{
		{"old", findMover(tr.ResourceMovers, "old"), 100, 0, 4},
		{"new", findMover(tr.ResourceMovers, "new"), 30, 0, 3},
		{"team b", findMover(tr.TeamMovers, "b"), 30, 0, 3},
		{"total", tr.TotalMover, 122.5, 7.5, 4},
	} {
		if c.m == nil {
			t.Fatalf("%s: no mover", c.name)
		}
		testnum.NearRel(t, c.name+" mean", c.m.Mean, c.mean, 1e-6)
		testnum.NearRel(t, c.name+" change", c.m.Change, c.change, 1e-6)
		if c.m.BaselineWeeks != c.weeks {
			t.Errorf("%s: mean over %d weeks, want %d", c.name, c.m.BaselineWeeks, c.weeks)
		}
	}
	if pct := findMover(tr.ResourceMovers, "new").ChangePct; pct == nil {
		t.Error("new: no change %, want 0")
	} else {
		testnum.NearRel(t, "new change %", *pct, 0, 1e-6)
	}
}

// TestTrendMonthlyRentalWeekNotAbsent is the second case: a monthly
// rental from Thursday Oct 1 2026 made W40 (Sep 28 – Oct 5) "absent, no
// data" though a report of W40 bills it. Only W39 (Sep 21–28), wholly
// before Oct 1, is absent. By hand, the month's 3,100 spread by time over
// Oct's 31 days (100 a day): W40 holds Oct 1–5, 4 days = 400; W41 (Oct
// 5–12) 7 days = 700.
func TestTrendMonthlyRentalWeekNotAbsent(t *testing.T) {
	oct1 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	lines := []finops.BillingLine{gpuLine("rent", finops.ModeMonthly, "3100", oct1, oct1.AddDate(0, 1, 0), 1)}
	end := time.Date(2026, 10, 12, 0, 0, 0, 0, time.UTC) // the end of W41
	in := baselineFleet(end, 3, lines, []Resource{{ID: "rent", Team: "a"}}, []Team{{Name: "a"}})
	res, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trend
	if len(tr.AbsentWeeks) != 1 || tr.AbsentWeeks[0] != "2026-W39" {
		t.Fatalf("absent %v, want only 2026-W39", tr.AbsentWeeks)
	}
	if len(tr.Weeks) != 2 || tr.Weeks[0].Label != "2026-W40" {
		t.Fatalf("weeks %+v, want W40 and W41", tr.Weeks)
	}
	testnum.NearRel(t, "W40 cost", tr.Weeks[0].Cost, 400, 1e-6)
	testnum.NearRel(t, "W41 cost", tr.Weeks[1].Cost, 700, 1e-6)
}

// TestTrendBaselineGenerated: random fleets over 8 weeks (W40…W47 of 2026),
// each resource with a random team, first week, last week, gaps, and lines
// that may start mid-week. Checked against the generated bill, without the
// analysis: each week's cost is the sum of the lines in it; a week holding
// a line is never absent, and only weeks ending at or before the first line
// are; and each mover's mean and baseline weeks are those of the weeks that
// resource (team, the total) had cost among the four before the last.
func TestTrendBaselineGenerated(t *testing.T) {
	const weeks = 8
	w40 := time.Date(2026, 9, 28, 0, 0, 0, 0, time.UTC)
	end := w40.AddDate(0, 0, 7*weeks)
	rng := rand.New(rand.NewSource(33))
	for n := range 60 {
		nres := 1 + rng.Intn(4)
		teamNames := []string{"a", "b", "c"}[:1+rng.Intn(3)]
		// cost[r][k] in cents, 0 where resource r has no line in week k.
		cost := make([][]int, nres)
		var lines []finops.BillingLine
		var res []Resource
		resTeam := make([]string, nres)
		first := end
		for r := range nres {
			id := fmt.Sprintf("gpu-%d", r)
			resTeam[r] = teamNames[rng.Intn(len(teamNames))]
			res = append(res, Resource{ID: id, Team: resTeam[r]})
			cost[r] = make([]int, weeks)
			from := rng.Intn(weeks)
			to := from + rng.Intn(weeks-from) // inclusive
			for k := from; k <= to; k++ {
				if k != from && rng.Intn(5) == 0 {
					continue // a gap: no line this week
				}
				s, e := w40.AddDate(0, 0, 7*k), w40.AddDate(0, 0, 7*k+7)
				if rng.Intn(3) == 0 {
					s = s.Add(time.Duration(1+rng.Intn(6*24)) * time.Hour) // starts mid-week
				}
				cents := 1 + rng.Intn(50000)
				cost[r][k] = cents
				lines = append(lines, weekLine(id, fmt.Sprintf("%d.%02d", cents/100, cents%100), s, e))
				first = minTime(first, s)
			}
		}
		var teams []Team
		for _, name := range teamNames {
			teams = append(teams, Team{Name: name})
		}
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			result, err := Analyze(baselineFleet(end, weeks, lines, res, teams))
			if err != nil {
				t.Fatal(err)
			}
			checkBaseline(t, result.Trend, w40, first, cost, resTeam, teamNames)
		})
	}
}

// checkBaseline checks tr against the generated bill (see
// TestTrendBaselineGenerated).
func checkBaseline(t *testing.T, tr *Trend, w40, first time.Time, cost [][]int, resTeam, teamNames []string) {
	t.Helper()
	const weeks = 8
	total := make([]float64, weeks)
	team := map[string][]float64{}
	for _, name := range teamNames {
		team[name] = make([]float64, weeks)
	}
	for r := range cost {
		for k, c := range cost[r] {
			total[k] += float64(c) / 100
			team[resTeam[r]][k] += float64(c) / 100
		}
	}
	var wantAbsent []string
	present := 0
	for k := range weeks {
		s := w40.AddDate(0, 0, 7*k)
		y, wk := s.ISOWeek()
		label := fmt.Sprintf("%04d-W%02d", y, wk)
		absent := !s.AddDate(0, 0, 7).After(first)
		if total[k] != 0 && absent {
			t.Fatalf("generator: week %s billed yet before the first line", label)
		}
		if absent {
			wantAbsent = append(wantAbsent, label)
			continue
		}
		w := tr.Weeks[present]
		if w.Label != label {
			t.Fatalf("week %d is %s, want %s (absent %v)", present, w.Label, label, tr.AbsentWeeks)
		}
		testnum.NearRel(t, label+" cost", w.Cost, total[k], 1e-6)
		present++
	}
	if !slices.Equal(tr.AbsentWeeks, wantAbsent) || len(tr.Weeks) != present {
		t.Fatalf("absent %v and %d weeks, want %v and %d", tr.AbsentWeeks, len(tr.Weeks), wantAbsent, present)
	}
	if present-1 < MoverWeeks {
		if tr.EnoughHistory || tr.TotalMover != nil {
			t.Fatalf("%d weeks before the last, yet movers", present-1)
		}
		return
	}
	// The baseline by hand: the weeks with cost among the four before the
	// last, by a different walk than moverMean's.
	check := func(name string, m *Mover, series []float64) {
		t.Helper()
		sum, n := 0.0, 0
		for k := weeks - 1 - MoverWeeks; k < weeks-1; k++ {
			if series[k] > 0 {
				sum += series[k]
				n++
			}
		}
		want := 0.0
		if n > 0 {
			want = sum / float64(n)
		}
		if m == nil {
			if n > 0 || series[weeks-1] != 0 {
				t.Errorf("%s: no mover, want mean %.2f over %d weeks", name, want, n)
			}
			return
		}
		testnum.NearRel(t, name+" mean", m.Mean, want, 1e-6)
		testnum.NearRel(t, name+" cost", m.Cost, series[weeks-1], 1e-6)
		if m.BaselineWeeks != n {
			t.Errorf("%s: mean over %d weeks, want %d", name, m.BaselineWeeks, n)
		}
	}
	check("total", tr.TotalMover, total)
	for _, name := range teamNames {
		check("team "+name, findMover(tr.TeamMovers, name), team[name])
	}
	for r := range cost {
		series := make([]float64, weeks)
		for k, c := range cost[r] {
			series[k] = float64(c) / 100
		}
		id := fmt.Sprintf("gpu-%d", r)
		check(id, findMover(tr.ResourceMovers, id), series)
	}
}
