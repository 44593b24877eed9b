package analysis

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

func findingsOf(r *Result, kind string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func TestBandsAndAllocatedIdle(t *testing.T) {
	// oneDay's monitored minutes by band: idle <10: 480 + 20 (the 5% dip) + 240 = 740;
	// target 80–95: 240 at 80 + 341 at 90 = 581; nothing else.
	r, err := Analyze(oneDay())
	if err != nil {
		t.Fatal(err)
	}
	b := r.ByResource[0].Bands
	testnum.NearRel(t, "idle band", b.Idle, 740.0/60, 1e-6)
	testnum.NearRel(t, "target band", b.Target, 581.0/60, 1e-6)
	testnum.NearRel(t, "low+fair+saturated", b.Low+b.Fair+b.Saturated, 0, 1e-6)
	testnum.NearRel(t, "saturated hours", r.ByResource[0].SaturatedHours, 0, 1e-6)
}

func TestSaturatedFinding(t *testing.T) {
	// 90 minutes at 97% in a row: saturated for 1.5 h > 1 h → a finding.
	in := oneDay()
	in.GPUs = []finops.GPUSeries{series("GPU-1", "gpu-1", day0, seg{600, 50}, seg{90, 97}, seg{750, 50})}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "saturated hours", r.ByResource[0].SaturatedHours, 1.5, 1e-6)
	testnum.NearRel(t, "saturated band", r.ByResource[0].Bands.Saturated, 1.5, 1e-6)
	if got := findingsOf(r, FindingSaturated); len(got) != 1 {
		t.Errorf("saturated findings = %+v, want 1", got)
	}
}

func TestForgottenInstanceFinding(t *testing.T) {
	// Idle 00:00–13:00 (780 min × 0.04 = 31.20) then busy: one idle run of
	// 13 h ≥ 12 h → a forgotten-instance finding worth 31.20.
	in := oneDay()
	in.GPUs = []finops.GPUSeries{series("GPU-1", "gpu-1", day0, seg{780, 1}, seg{660, 70})}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	got := findingsOf(r, FindingForgotten)
	if len(got) != 1 {
		t.Fatalf("forgotten findings = %+v", got)
	}
	testnum.NearRel(t, "forgotten money", got[0].Money, 31.20, 1e-6)
	// 2026-11-02 is a Monday; the run is 00:00–13:00 UTC.
	if want := "Mon 2 Nov 00:00 – Mon 2 Nov 13:00 (13 h × 1 GPU)"; !strings.Contains(got[0].Text, want) {
		t.Errorf("forgotten finding %q does not say %q", got[0].Text, want)
	}
	// An 11-hour idle run is not forgotten.
	in.GPUs = []finops.GPUSeries{series("GPU-1", "gpu-1", day0, seg{660, 1}, seg{780, 70})}
	if r, _ = Analyze(in); len(findingsOf(r, FindingForgotten)) != 0 {
		t.Error("an 11 h idle run became a forgotten-instance finding")
	}
}

func TestTrendsAndBudgetForecast(t *testing.T) {
	// Nov 1: billed 12 h (28.80); Nov 2 (the window): billed 24 h (57.60).
	// Previous window = Nov 1 → 28.80; up 100% > 20% and by 28.80 ≥ floor
	// max(1% × 57.60, 1) = 1 → a spike finding for the resource and its team.
	// Month to date Nov 1–2 = 86.40 over 2 days; November has 30 → forecast
	// 86.40 × 30 / 2 = 1,296 > budget 1,000 → a budget finding worth 296.
	in := oneDay()
	nov1 := day0.Add(-24 * time.Hour)
	in.Lines = append(hourlyLines("gpu-1", "2.40", nov1, 12), in.Lines...)
	in.Resources = []Resource{{ID: "gpu-1", Team: "nlp", Hosts: []string{"gpu-1"}}}
	in.Teams = []Team{{Name: "nlp", MonthlyBudget: new(1000.0)}}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "resource previous cost", r.ByResource[0].PreviousCost, 28.80, 1e-6)
	team := r.ByTeam[0]
	testnum.NearRel(t, "team previous cost", team.PreviousCost, 28.80, 1e-6)
	testnum.NearRel(t, "month to date", team.MonthToDate, 86.40, 1e-6)
	testnum.NearRel(t, "month forecast", team.MonthForecast, 1296, 1e-6)
	if got := findingsOf(r, FindingSpendSpike); len(got) != 2 {
		t.Errorf("spike findings = %+v, want resource and team", got)
	} else {
		testnum.NearRel(t, "spike money", got[0].Money, 28.80, 1e-6)
	}
	if got := findingsOf(r, FindingBudget); len(got) != 1 {
		t.Errorf("budget findings = %+v", got)
	} else {
		testnum.NearRel(t, "budget overrun", got[0].Money, 296, 1e-6)
	}
}

func TestAllocatedIdleBucket(t *testing.T) {
	// From TestTasksAndUnallocated: eval held 120 idle minutes = 4.80.
	in := oneDay()
	in.TaskRuns = []finops.TaskRun{{Task: "eval", Resource: "gpu-1", Start: day0.Add(19 * time.Hour), End: day0.Add(22 * time.Hour)}}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "allocated idle", r.Totals.AllocatedIdleCost, 4.80, 1e-6)
	testnum.NearRel(t, "unallocated", r.Totals.UnallocatedCost, 57.60-7.20, 1e-6)
}

// TestPoolMonthlyCards: six hourly cards at 10/h (catalog monthly 3,000).
// Cards 1–4 are busy all day; cards 5–6 only 00:00–06:00. Busy GPUs per hour:
// 6 for 180 h of the 30 days, 4 for the other 540 h. With k monthly cards the
// pool costs k × 3,000 + Σ_h max(0, busy_h − k) × 10 × 1.1:
//
//	k=3: 9,000 + (180×3 + 540×1) × 11 = 20,880
//	k=4: 12,000 + 180×2 × 11         = 15,960   ← cheapest
//	k=5: 15,000 + 180×1 × 11         = 16,980
//	k=6: 18,000
//
// Today: 6 cards × 720 h × 10 = 43,200 a month; saving 27,240.
func TestPoolMonthlyCards(t *testing.T) {
	var lines []finops.BillingLine
	var gpus []finops.GPUSeries
	var resources []Resource
	for c := 1; c <= 6; c++ {
		id, host := fmt.Sprintf("card-%d", c), fmt.Sprintf("host-%d", c)
		for d := 0; d < 30; d++ {
			s := month0.AddDate(0, 0, d)
			lines = append(lines, gpuLine(id, finops.ModeHourly, "240", s, s.Add(24*time.Hour), 1))
		}
		day := []seg{{1440, 90}}
		if c > 4 {
			day = []seg{{360, 90}, {1080, 0}}
		}
		gpus = append(gpus, series("G"+host, host, month0, repeatDays(30, day...)...))
		resources = append(resources, Resource{ID: id, Hosts: []string{host}})
	}
	in := thirtyDays(lines, finops.GPUSeries{}, false)
	in.GPUs, in.Resources = gpus, resources
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pools) != 1 {
		t.Fatalf("pools = %+v", r.Pools)
	}
	p := r.Pools[0]
	if p.MonthlyCards != 4 || p.GPUs != 6 || p.Resources != 6 {
		t.Errorf("pool = %+v, want 4 monthly cards of 6", p)
	}
	testnum.NearRel(t, "pool cost", p.PoolMonthlyCost, 15960, 1e-6)
	testnum.NearRel(t, "current", p.CurrentMonthlyCost, 43200, 1e-6)
	testnum.NearRel(t, "savings", p.MonthlySavings, 27240, 1e-6)
}

func TestFindingsDeterministic(t *testing.T) {
	a, _ := Analyze(oneDay())
	b, _ := Analyze(oneDay())
	if !reflect.DeepEqual(a.Findings, b.Findings) {
		t.Error("same input, different findings")
	}
}

// TestSkipTrendsAndHourly: the review's input leaves out what it does not
// show. The window's own numbers stay those of TestOneDayMinuteGrid (57.60,
// idle 28.80); the trend fields stay zero although Nov 1 is in the lines; no
// hourly rows.
func TestSkipTrendsAndHourly(t *testing.T) {
	in := oneDay()
	in.Lines = append(hourlyLines("gpu-1", "2.40", day0.Add(-24*time.Hour), 12), in.Lines...)
	in.Resources = []Resource{{ID: "gpu-1", Team: "nlp", Hosts: []string{"gpu-1"}}}
	full, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.HourlyUtil) != 1 || len(full.HourlyUtil[0].Util) != 24 { // one GPU × 24 window hours
		t.Fatalf("hourly rows = %+v, want one GPU's 24 hours", full.HourlyUtil)
	}
	in.SkipTrends, in.SkipHourly = true, true
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "cost", r.ByResource[0].Cost, 57.60, 1e-6)
	testnum.NearRel(t, "idle cost", r.ByResource[0].IdleCost, 28.80, 1e-6)
	if r.ByResource[0].PreviousCost != 0 || r.ByTeam[0].PreviousCost != 0 || r.ByTeam[0].MonthToDate != 0 {
		t.Errorf("trends computed: resource previous %v, team previous %v, month to date %v",
			r.ByResource[0].PreviousCost, r.ByTeam[0].PreviousCost, r.ByTeam[0].MonthToDate)
	}
	if len(r.HourlyUtil) != 0 {
		t.Errorf("hourly rows = %d, want none", len(r.HourlyUtil))
	}
}

// TestPreviousTotal: the totals carry the previous window's cost, every
// team's, also one with nothing in this window (it keeps a row with cost 0).
// Nov 1: gpu-1 (nlp) 12 h × 2.40 = 28.80 and gpu-2 (no team: unassigned)
// 10 h × 1.00 = 10.00; Nov 2 (the window): only gpu-1, 24 h = 57.60.
// Previous total 38.80; the nlp slice's 28.80.
func TestPreviousTotal(t *testing.T) {
	in := oneDay()
	nov1 := day0.Add(-24 * time.Hour)
	in.Lines = append(append(hourlyLines("gpu-1", "2.40", nov1, 12), hourlyLines("gpu-2", "1.00", nov1, 10)...), in.Lines...)
	in.Resources = []Resource{{ID: "gpu-1", Team: "nlp", Hosts: []string{"gpu-1"}}}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "previous total", r.Totals.PreviousCost, 38.80, 1e-6)
	if len(r.ByTeam) != 2 || r.ByTeam[1].Team != unassigned || r.ByTeam[1].Cost != 0 {
		t.Fatalf("teams = %+v, want nlp and unassigned (cost 0)", r.ByTeam)
	}
	testnum.NearRel(t, "unassigned previous cost", r.ByTeam[1].PreviousCost, 10, 1e-6)
	testnum.NearRel(t, "nlp slice previous total", r.ForTeam("nlp").Totals.PreviousCost, 28.80, 1e-6)
}

// TestSpanText: an idle run says its dates, not only weekdays (issue #27:
// "Mon 00:00 – Mon 00:00" for a week idle), and the year where it could be
// mistaken.
func TestSpanText(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	at := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, sh) }
	w48 := at(2026, 11, 23, 0)
	for _, tc := range []struct {
		name               string
		start, end, period time.Time
		want               string
	}{
		{"a whole week", w48, at(2026, 11, 30, 0), w48, "Mon 23 Nov 00:00 – Mon 30 Nov 00:00"},
		{"a weekend", at(2026, 11, 27, 21), at(2026, 11, 30, 0), w48, "Fri 27 Nov 21:00 – Mon 30 Nov 00:00"},
		// 2026-W53 starts Mon 28 Dec 2026; 4 Jan 2027 is a Monday.
		{"across the new year", at(2026, 12, 31, 18), at(2027, 1, 4, 0), at(2026, 12, 28, 0),
			"Thu 31 Dec 2026 18:00 – Mon 4 Jan 2027 00:00"},
		// 2027-W01 starts Mon 4 Jan 2027, a run in the lookback of the year before.
		{"another year than the period", at(2026, 12, 28, 0), at(2026, 12, 29, 6), at(2027, 1, 4, 0),
			"Mon 28 Dec 2026 00:00 – Tue 29 Dec 2026 06:00"},
		// Instants are shown in the report zone: 16:00 UTC is 00:00 in Shanghai the next day.
		{"in the report zone", time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC), w48,
			"Mon 23 Nov 00:00 – Mon 23 Nov 12:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := spanText(tc.start, tc.end, tc.period, sh); got != tc.want {
				t.Errorf("spanText = %q, want %q", got, tc.want)
			}
		})
	}
}
