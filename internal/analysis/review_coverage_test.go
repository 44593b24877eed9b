package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

// Issue #25: the review's utilization carries its telemetry coverage, reads as
// a lower bound where telemetry had gaps, and a quarter with too little
// telemetry neither supports nor vetoes a verdict.
//
// Every case uses the worked example's assumptions (TestRentOrBuyWorkedExample):
// owned ¥3,792 per GPU-month, p_h ¥15, breakeven 3,792 / 10,950 = 34.630%,
// margin 15, so a purchase needs 49.630%; the pair is 2 × A100-80GB.
//
// telemetry coverage = covered share of the quarter × monitored ÷ billed
// GPU-hours; each quarter needs ≥ 2/3 (DefaultMinTelemetryCoverage, 67%) to vote.
func TestRentOrBuyTelemetryCoverage(t *testing.T) {
	// 2026Q3: 2026-07-01 → 2026-10-01, 92 days = 2,208 h; 2026Q2: 2026-04-01 →
	// 2026-07-01, 91 days = 2,184 h.
	q3 := Window{Start: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Label: "2026Q3"}
	q2 := Window{Start: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), End: q3.Start, Label: "2026Q2"}
	// fourHours is the issue's 2026Q2: the pair rented hourly for 4 hours on
	// 2026-06-30 (8 GPU-hours billed, all monitored, 2 active). The data
	// covers one day: coverage 24 / 2,184 = 1.0989%, telemetry coverage
	// 1.0989% × 100% = 1.1%; utilization 2 / (2 × 24) = 4.1667%.
	fourHours := &Result{Period: Period{Start: q2.Start, End: q2.End, TimeZone: "UTC", Label: q2.Label}, Currency: "CNY",
		ByResource: []ResourceCost{{ResourceID: "dc-a100x2", Provider: "TestCloud", GPUModel: "A100-80GB", GPUCount: 2,
			Pricing: finops.ModeHourly, Cost: 120, GPUHoursBilled: 8, GPUHoursActive: 2}},
		Daily: []DailyCost{{Day: time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC), Team: "nlp", GPUModel: "A100-80GB", Cost: 120}}}
	issueQ3 := func(in *ReviewInput) {
		// 2026Q3 busy 62.5%: 0.625 × 2 × 2,208 = 2,760 active GPU-hours;
		// 456.25 h/GPU-month → hourly 456.25 × 15 × 1.1 = 7,528.13 against
		// monthly 7,000 → rent 7,000, savings 7,000 − 3,792 = 3,208.
		in.Quarter, in.Previous = q3, q2
		in.Current, in.PreviousResult = rvResult(q3, rvObs{util: 62.5}), fourHours
	}
	minCoverage := func(v float64) func(*ReviewInput) {
		return func(in *ReviewInput) { in.Purchases[0].MinCoverage = &v }
	}
	for _, tc := range []struct {
		name       string
		cur        rvObs
		prev       *rvObs
		edit       func(*ReviewInput)
		verdict    string
		confidence string
		reason     string
		observed   string // ObservedText
		previous   string // PreviousText
		// By hand: monitored share, telemetry coverage, upper bound of this
		// quarter; whether each quarter votes.
		monitored, telemetry, upper float64
		votes, prevVotes            bool
	}{
		{
			// The issue's first case: 2026Q1 busy 19.1% of the hours while 54% of
			// the billed GPU-hours had no telemetry. Billed 4,320 GPU-hours,
			// active 0.191 × 4,320 = 825.12, unmonitored 0.54 × 4,320 = 2,332.8:
			// monitored 46%, telemetry coverage 1 × 46% = 46% < 66.7%. Had every
			// gap been busy: (825.12 + 2,332.8) / 4,320 = 73.1%. The quarter
			// cannot vote: 19.1% is a lower bound, not "below breakeven".
			name: "54% unmonitored: a lower bound, too little to judge", cur: rvObs{util: 19.1, unmonitored: 0.54}, prev: &rvObs{util: 60},
			verdict: VerdictInsufficientData, confidence: "low",
			reason:   "not enough telemetry in 2026Q1 (46% of its hours monitored, 67% needed) to judge: busy between 19.1% and 73.1% of the hours",
			observed: "≥ 19.1% (46% of billed GPU-hours monitored)", previous: "60.0%",
			monitored: 0.46, telemetry: 0.46, upper: 73.1, votes: false, prevVotes: true,
		},
		{
			// The same quarter with min_coverage 0.40: it votes, but still reads
			// as a lower bound: 19.1 < 34.630 → keep renting; 54% > 30%
			// unmonitored → low confidence.
			name: "54% unmonitored under min_coverage 0.4: keep renting on a lower bound", cur: rvObs{util: 19.1, unmonitored: 0.54},
			prev: &rvObs{util: 60}, edit: minCoverage(0.4),
			verdict: VerdictKeepRenting, confidence: "low",
			reason:   "busy at least 19.1% of the hours, below the 34.6% breakeven",
			observed: "≥ 19.1% (46% of billed GPU-hours monitored)", previous: "60.0%",
			monitored: 0.46, telemetry: 0.46, upper: 73.1, votes: true, prevVotes: true,
		},
		{
			// The issue's second case: 2026Q3 busy 62.5% (62.5 − 34.630 =
			// 27.87 points above breakeven, clears 49.630) and 4 hours of data in
			// 2026Q2 (1.1% of its hours, utilization 4.2%). Today 4.2% vetoes the
			// buy; now 2026Q2 does not vote, the buy stands on 2026Q3 alone:
			// medium confidence, and the reason says why 2026Q2 was left out.
			name: "previous quarter at 1.1% coverage no longer vetoes", edit: issueQ3,
			verdict: VerdictBuy, confidence: "medium",
			reason:   "busy 62.5% of the hours, 27.9 points above the 34.6% breakeven (margin 15)",
			observed: "62.5%", previous: "4.2%; not counted: 1.1% of 2026Q2's hours monitored, 67% needed",
			monitored: 1, telemetry: 1, upper: 62.5, votes: true, prevVotes: false,
		},
		{
			// With min_coverage 0 every quarter with data votes, as before
			// issue #25: 4.2% < 34.630 vetoes.
			name: "min_coverage 0: the 4 hours veto again", edit: func(in *ReviewInput) { issueQ3(in); minCoverage(0)(in) },
			verdict: VerdictKeepRenting, confidence: "medium",
			reason:   "only 4.2% in 2026Q2, below the 34.6% breakeven",
			observed: "62.5%", previous: "4.2%",
			monitored: 1, telemetry: 1, upper: 62.5, votes: true, prevVotes: true,
		},
		{
			// 2025Q4 busy 30% with 51% unmonitored: telemetry coverage 49% < 66.7%,
			// so its 30% does not veto; 2026Q1 at 60% buys, medium.
			name: "previous quarter 49% monitored does not veto", cur: rvObs{util: 60}, prev: &rvObs{util: 30, unmonitored: 0.51},
			verdict: VerdictBuy, confidence: "medium",
			reason:   "; not enough telemetry in 2025Q4 (49% of its hours monitored, 67% needed) to compare",
			observed: "60.0%", previous: "≥ 30.0% (49% of billed GPU-hours monitored); not counted: 49% of 2025Q4's hours monitored, 67% needed",
			monitored: 1, telemetry: 1, upper: 60, votes: true, prevVotes: false,
		},
		{
			// At 70% monitored (≥ 66.7%) 2025Q4 votes: its lower bound 30% <
			// 34.630 vetoes (cautious: renting is reversible, a purchase is
			// not); a lower bound is no confirmation, so medium, not high.
			name: "previous quarter 70% monitored vetoes as a lower bound", cur: rvObs{util: 60}, prev: &rvObs{util: 30, unmonitored: 0.3},
			verdict: VerdictKeepRenting, confidence: "medium",
			reason:   "but only 30.0% or more in 2025Q4, below the 34.6% breakeven",
			observed: "60.0%", previous: "≥ 30.0% (70% of billed GPU-hours monitored)",
			monitored: 1, telemetry: 1, upper: 60, votes: true, prevVotes: true,
		},
		{
			// 2026Q1 68% monitored (≥ 66.7%) and busy at least 60%: the lower
			// bound alone clears 49.630, so it buys; 32% > 30% unmonitored → low.
			// Upper: (0.6 + 0.32) × 4,320 / 4,320 = 92%.
			name: "current quarter 68% monitored buys on its lower bound", cur: rvObs{util: 60, unmonitored: 0.32}, prev: &rvObs{util: 60},
			verdict: VerdictBuy, confidence: "low",
			reason:   "busy at least 60.0% of the hours (60.0% in 2025Q4)",
			observed: "≥ 60.0% (68% of billed GPU-hours monitored)", previous: "60.0%",
			monitored: 0.68, telemetry: 0.68, upper: 92, votes: true, prevVotes: true,
		},
		{
			// No telemetry: utilization unknown, never 0%.
			name: "no telemetry reads unknown", cur: rvObs{util: 0, unmonitored: 1}, prev: &rvObs{util: 60},
			verdict: VerdictInsufficientData, confidence: "low", reason: "no utilization data for A100-80GB in 2026Q1",
			observed: "unknown (no telemetry)", previous: "60.0%",
			monitored: 0, telemetry: 0, upper: 100, votes: false, prevVotes: true,
		},
		{
			// Two thirds of 2026Q1 (60 of 90 days) fully monitored: telemetry
			// coverage 60 / 90 = 66.7% votes; the day-span rule still applies
			// first (60 ≥ 60 days: enough). 2025Q4 confirms → buy; medium
			// because under 90% of the quarter is covered.
			name: "two thirds of the quarter fully monitored", cur: rvObs{util: 60, days: 60}, prev: &rvObs{util: 60},
			verdict: VerdictBuy, confidence: "medium", reason: "busy 60.0% of the hours (60.0% in 2025Q4)",
			observed: "60.0%", previous: "60.0%",
			monitored: 1, telemetry: 60.0 / 90, upper: 60, votes: true, prevVotes: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := rvInput(tc.cur, tc.prev)
			if tc.edit != nil {
				tc.edit(in)
			}
			rv, err := RentOrBuy(in)
			if err != nil {
				t.Fatal(err)
			}
			m := rv.Models[0]
			if m.Verdict != tc.verdict || m.Confidence != tc.confidence || !strings.Contains(m.Reason, tc.reason) {
				t.Errorf("verdict %s (%s): %q\nwant %s (%s) mentioning %q", m.Verdict, m.Confidence, m.Reason, tc.verdict, tc.confidence, tc.reason)
			}
			if m.ObservedText != tc.observed || m.PreviousText != tc.previous {
				t.Errorf("observed %q, previous %q\nwant %q, %q", m.ObservedText, m.PreviousText, tc.observed, tc.previous)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"monitored share", m.MonitoredShare, tc.monitored},
				{"telemetry coverage", m.TelemetryCoverage, tc.telemetry},
				{"upper bound", m.ObservedUpperBound, tc.upper},
			} {
				if math.Abs(c.got-c.want) > 1e-9 {
					t.Errorf("%s = %.6f, want %.6f", c.name, c.got, c.want)
				}
			}
			if m.QuarterVotes != tc.votes || m.PreviousVotes != tc.prevVotes || m.ObservedLowerBound != (tc.monitored > 0 && tc.monitored < 1) {
				t.Errorf("votes %v, previous votes %v, lower bound %v; want %v, %v, %v", m.QuarterVotes, m.PreviousVotes,
					m.ObservedLowerBound, tc.votes, tc.prevVotes, tc.monitored > 0 && tc.monitored < 1)
			}
			wantMin := DefaultMinTelemetryCoverage
			if v := in.Purchases[0].MinCoverage; v != nil {
				wantMin = *v
			}
			if m.MinTelemetryCoverage != wantMin {
				t.Errorf("min telemetry coverage %v, want %v", m.MinTelemetryCoverage, wantMin)
			}
		})
	}
}

// TestRentOrBuyIssue25PreviousTelemetry pins the 2026Q2 figures of the issue
// by hand: one day of 2,184 h covered, 8 of 8 billed GPU-hours monitored.
func TestRentOrBuyIssue25PreviousTelemetry(t *testing.T) {
	q3 := Window{Start: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Label: "2026Q3"}
	q2 := Window{Start: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), End: q3.Start, Label: "2026Q2"}
	in := rvInput(rvObs{}, nil)
	in.Quarter, in.Previous, in.Current = q3, q2, rvResult(q3, rvObs{util: 62.5})
	in.PreviousResult = &Result{Period: Period{Start: q2.Start, End: q2.End, TimeZone: "UTC", Label: q2.Label}, Currency: "CNY",
		ByResource: []ResourceCost{{ResourceID: "dc-a100x2", Provider: "TestCloud", GPUModel: "A100-80GB", GPUCount: 2,
			Pricing: finops.ModeHourly, Cost: 120, GPUHoursBilled: 8, GPUHoursActive: 2}},
		Daily: []DailyCost{{Day: time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC), GPUModel: "A100-80GB", Cost: 120}}}
	rv, err := RentOrBuy(in)
	if err != nil {
		t.Fatal(err)
	}
	m := rv.Models[0]
	// coverage 24 / 2,184; monitored 8 / 8; utilization 2 / (2 × 24) × 100.
	if m.PreviousCoverage == nil || math.Abs(*m.PreviousCoverage-24.0/2184) > 1e-12 ||
		m.PreviousMonitoredShare == nil || *m.PreviousMonitoredShare != 1 ||
		m.PreviousTelemetryCoverage == nil || math.Abs(*m.PreviousTelemetryCoverage-24.0/2184) > 1e-12 ||
		m.PreviousUtilization == nil || math.Abs(*m.PreviousUtilization-2.0/48*100) > 1e-9 || m.PreviousVotes {
		t.Errorf("previous: coverage %v, monitored %v, telemetry %v, utilization %v, votes %v", m.PreviousCoverage,
			m.PreviousMonitoredShare, m.PreviousTelemetryCoverage, m.PreviousUtilization, m.PreviousVotes)
	}
	// 2026Q3: 62.5% = 2,760 / (2 × 2,208); rent 7,000 (monthly), savings 3,208.
	if math.Abs(m.ObservedUtilization-62.5) > 1e-9 || m.RentMonthlyPerGPU != 7000 || math.Abs(m.MonthlySavingsPerGPU-3208) > 1e-9 ||
		m.Verdict != VerdictBuy {
		t.Errorf("observed %.4f, rent %.2f, savings %.2f, %s: %s", m.ObservedUtilization, m.RentMonthlyPerGPU, m.MonthlySavingsPerGPU, m.Verdict, m.Reason)
	}
}

// TestNotEnoughTelemetryJustUnder: 66.63% of the hours would print as the
// 67% needed; the reason says it falls just short instead.
func TestNotEnoughTelemetryJustUnder(t *testing.T) {
	if got, want := notEnoughTelemetry("2026Q2", 0.6663, 2.0/3), "not enough telemetry in 2026Q2 (just under 67% of its hours monitored, 67% needed)"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestShareText(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0%"}, {0.0004, "<0.1%"}, {24.0 / 2184, "1.1%"}, {0.46, "46%"}, {0.5, "50%"}, {0.9949, "99%"},
		{0.9960, "99.6%"}, {0.99996, ">99.9%"}, {1, "100%"},
	} {
		if got := shareText(tc.in); got != tc.want {
			t.Errorf("shareText(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
