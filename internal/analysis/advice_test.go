package analysis

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// busy3h is the card of TestRecommendations' first case: a monthly card busy
// 3 h a day, advised to switch to hourly (saving 3,000 − 990 = 2,010).
func busy3h(cost string, hours int) *Input {
	return thirtyDays(monthly(cost), series("G", "host", month0,
		repeatDays(30, seg{hours * 60, 90}, seg{(24 - hours) * 60, 0})...), false)
}

// TestAdviceIDStable: the same advice on the same resource keeps its id from
// one week to the next while its amounts change; another action or resource
// has another id; keep has none.
func TestAdviceIDStable(t *testing.T) {
	// Week 1: a 3,000 card busy 3 h a day; week 2: a 3,300 card busy 4 h
	// (120 h × 10 × 1.1 = 1,320 hourly, saving 1,980): other amounts, the
	// same advice.
	r1, err := Analyze(busy3h("3000", 3))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Analyze(busy3h("3300", 4))
	if err != nil {
		t.Fatal(err)
	}
	a, b := r1.Recommendations[0], r2.Recommendations[0]
	if a.Action != ActionSwitchToHourly || b.Action != ActionSwitchToHourly {
		t.Fatalf("actions %s, %s; want switch_to_hourly twice", a.Action, b.Action)
	}
	testnum.NearRel(t, "week 1 savings", a.MonthlySavings, 2010, 1e-6)
	testnum.NearRel(t, "week 2 savings", b.MonthlySavings, 1980, 1e-6)
	if a.ID != b.ID {
		t.Errorf("id week 1 %q, week 2 %q: want the same", a.ID, b.ID)
	}
	if !regexp.MustCompile(`^adv-[0-9a-f]{8}$`).MatchString(a.ID) {
		t.Errorf("id %q: want adv- and 8 hex digits", a.ID)
	}
	for _, tc := range []struct {
		name, resource, action string
		same                   bool
	}{
		{"another action", "card", ActionRelease, false},
		{"another resource", "card2", ActionSwitchToHourly, false},
		{"keep has no id", "card", ActionKeep, false},
	} {
		got := AdviceID(tc.resource, tc.action)
		if (got == a.ID) != tc.same {
			t.Errorf("%s: id %q against %q", tc.name, got, a.ID)
		}
	}
	if id := AdviceID("card", ActionKeep); id != "" {
		t.Errorf("keep: id %q, want none", id)
	}
	// An Azure id whose case changes between two exports is one resource.
	if AdviceID("/subscriptions/S/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/VM", ActionRelease) !=
		AdviceID("/subscriptions/s/resourcegroups/rg/providers/microsoft.compute/virtualmachines/vm", ActionRelease) {
		t.Error("an Azure id in another case has another advice id")
	}
}

// TestAdviceDecisionsHide: dismissed advice and advice snoozed past the
// window's end are hidden (counted in Advice.Hidden) and leave the savings
// total and the findings; a snooze whose date is at or before the window's
// end has expired and the advice is open again; done advice is hidden too.
func TestAdviceDecisionsHide(t *testing.T) {
	end := month0.AddDate(0, 0, 30) // the window's end
	id := AdviceID("card", ActionSwitchToHourly)
	for _, tc := range []struct {
		name         string
		d            *AdviceDecision
		open         bool
		hidden, done int
	}{
		{name: "no decision", open: true},
		{name: "dismissed", d: &AdviceDecision{Decision: AdviceDismissed}, hidden: 1},
		{name: "snoozed past the end", d: &AdviceDecision{Decision: AdviceSnoozed, Until: end.Add(time.Hour)}, hidden: 1},
		{name: "snooze expired at the end", d: &AdviceDecision{Decision: AdviceSnoozed, Until: end}, open: true},
		{name: "snooze expired before", d: &AdviceDecision{Decision: AdviceSnoozed, Until: end.AddDate(0, 0, -3)}, open: true},
		{name: "done", d: &AdviceDecision{Decision: AdviceDone}, done: 1},
		{name: "another advice dismissed", d: &AdviceDecision{Decision: AdviceDismissed, ID: AdviceID("card", ActionRelease)}, open: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := busy3h("3000", 3)
			if tc.d != nil {
				d := *tc.d
				if d.ID == "" {
					d.ID = id
				}
				d.ResourceID, d.Action, d.DecidedAt = "card", ActionSwitchToHourly, end.AddDate(0, 0, -1)
				in.Advice.Decisions = []AdviceDecision{d}
			}
			res, err := Analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			recFindings := 0
			for _, f := range res.Findings {
				if f.Kind == FindingRecommendation {
					recFindings++
				}
			}
			if tc.open {
				// Open: the advice, its 2,010 in the total and its finding.
				if len(res.Recommendations) != 1 || res.Recommendations[0].ID != id {
					t.Fatalf("recommendations %+v, want %s open", res.Recommendations, id)
				}
				testnum.NearRel(t, "monthly savings", res.Totals.MonthlySavings, 2010, 1e-6)
				if recFindings != 1 {
					t.Errorf("%d recommendation findings, want 1", recFindings)
				}
			} else {
				if len(res.Recommendations) != 0 {
					t.Errorf("recommendations %+v, want none open", res.Recommendations)
				}
				testnum.NearRel(t, "monthly savings", res.Totals.MonthlySavings, 0, 1e-6)
				if recFindings != 0 {
					t.Errorf("%d recommendation findings of hidden advice, want 0", recFindings)
				}
			}
			var hidden, done int
			if res.Advice != nil {
				hidden, done = res.Advice.Hidden, res.Advice.Done
			}
			if hidden != tc.hidden || done != tc.done {
				t.Errorf("hidden %d, done %d; want %d, %d", hidden, done, tc.hidden, tc.done)
			}
		})
	}
}

// TestRealisedSavings measures advice marked done on the bills around it.
//
// The card: a monthly rental billed ¥3,100 for October ([Oct 1, Nov 1), 31
// days: ¥100 a day as the report spreads it), then ¥200 for [Nov 1, Nov 3)
// when it was given back. The advice is marked done on Nov 3 00:00 (UTC).
//   - before: [Oct 6, Nov 3), 28 days: Oct 6–Nov 1 is 26 days × 100 = 2,600,
//     plus 200 = 2,800, ¥100 a day;
//   - after, released: no line, ¥0 a day; realised (100 − 0) × 30.4375 = 3,043.75;
//   - after, moved to hourly at ¥10 for 2 h a day: ¥20 a day; realised
//     (100 − 20) × 30.4375 = 2,435.
//
// The report ends Nov 23: Nov 3–Nov 23 is 20 full days. Ending Nov 10 (7 days)
// it is measured; ending Nov 9 (6 days) it is too early.
func TestRealisedSavings(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	oct := []finops.BillingLine{
		gpuLine("card", finops.ModeMonthly, "3100", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), day(1), 1),
		gpuLine("card", finops.ModeMonthly, "200", day(1), day(3), 1),
	}
	// A card first billed on Oct 20, 14 days before the decision.
	young := []finops.BillingLine{
		gpuLine("card", finops.ModeMonthly, "1400", time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC), day(3), 1),
	}
	var hourly []finops.BillingLine
	for d := 3; d < 30; d++ {
		s := day(d).Add(9 * time.Hour)
		hourly = append(hourly, gpuLine("card", finops.ModeHourly, "20", s, s.Add(2*time.Hour), 1))
	}
	for _, tc := range []struct {
		name      string
		lines     []finops.BillingLine
		end       time.Time
		baseline  float64
		status    string
		daysAfter int
		before    float64
		fromBase  bool
		after     float64
		realised  float64
	}{
		{name: "released", lines: oct, end: day(23), status: RealisedMeasured, daysAfter: 20,
			before: 100, after: 0, realised: 3043.75},
		{name: "moved to hourly", lines: append(append([]finops.BillingLine{}, oct...), hourly...), end: day(23),
			status: RealisedMeasured, daysAfter: 20, before: 100, after: 20, realised: 2435},
		{name: "seven days after", lines: oct, end: day(10), status: RealisedMeasured, daysAfter: 7,
			before: 100, after: 0, realised: 3043.75},
		// Billed only from Oct 20: before is measured from its first line,
		// 1,400 / 14 days = ¥100 a day (over the whole 28 days it would read
		// 1,400 / 28 = ¥50); realised (100 − 0) × 30.4375 = 3,043.75.
		{name: "first billed inside the 28 days", lines: young, end: day(23), status: RealisedMeasured, daysAfter: 20,
			before: 100, after: 0, realised: 3043.75},
		{name: "six days after: too early", lines: oct, end: day(9), status: RealisedTooEarly, daysAfter: 6},
		// The lines before the decision are gone: the baseline recorded
		// with it, ¥2,700 a month, is ¥90 a day; realised 90 × 30.4375 = 2,739.375.
		{name: "baseline", lines: nil, end: day(23), baseline: 2700, status: RealisedMeasured, daysAfter: 20,
			before: 90, fromBase: true, after: 0, realised: 2739.375},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Another resource is billed in the window, so that the
			// report has data there.
			other := hourlyLines("other", "10", tc.end.AddDate(0, 0, -7), 7*24)
			in := &Input{
				Window: Window{Start: tc.end.AddDate(0, 0, -7), End: tc.end},
				Lines:  other,
				Params: DefaultParams(),
				Advice: AdviceInput{
					Decisions: []AdviceDecision{{ID: AdviceID("card", ActionRelease), Decision: AdviceDone,
						DecidedAt: day(3), ResourceID: "card", Action: ActionRelease, Baseline: tc.baseline,
						Expected: 3000, Currency: "USD"}},
					Lines: append(append([]finops.BillingLine{}, tc.lines...), other...),
				},
			}
			res, err := AnalyzeContext(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Advice == nil || len(res.Advice.Realised) != 1 {
				t.Fatalf("advice %+v, want one realised entry", res.Advice)
			}
			r := res.Advice.Realised[0]
			if r.Status != tc.status || r.DaysAfter != tc.daysAfter || r.BeforeFromBaseline != tc.fromBase {
				t.Fatalf("status %s, %d days after, from baseline %v; want %s, %d, %v", r.Status, r.DaysAfter,
					r.BeforeFromBaseline, tc.status, tc.daysAfter, tc.fromBase)
			}
			testnum.NearRel(t, "before per day", r.BeforePerDay, tc.before, 1e-6)
			testnum.NearRel(t, "after per day", r.AfterPerDay, tc.after, 1e-6)
			testnum.NearRel(t, "realised", r.RealisedMonthlySavings, tc.realised, 1e-6)
			testnum.NearRel(t, "total realised", res.Advice.RealisedMonthlySavings, tc.realised, 1e-6)
			if tc.status == RealisedMeasured {
				testnum.NearRel(t, "expected", res.Advice.ExpectedMonthlySavings, 3000, 1e-6)
			} else if res.Advice.TooEarly != 1 || res.Advice.ExpectedMonthlySavings != 0 {
				t.Errorf("too early: %d, expected %g; want 1 and 0 (no number)", res.Advice.TooEarly, res.Advice.ExpectedMonthlySavings)
			}
		})
	}
}

// TestAdviceForTeam: a team's slice counts the hidden and done advice of its
// own resources, and keeps the realised entries of the resources that were
// its before the decision (a released one has no row in the window).
func TestAdviceForTeam(t *testing.T) {
	r := &Result{
		ByTeam:     []TeamCost{{Team: "nlp"}, {Team: "cv"}, {Team: "infra"}},
		ByResource: []ResourceCost{{ResourceID: "a", Team: "nlp"}, {ResourceID: "b", Team: "cv"}, {ResourceID: "c", Team: "infra"}},
		Advice: &AdviceSummary{Hidden: 2, Done: 1, hiddenRes: []string{"a", "b"}, doneRes: []string{"b"},
			Realised: []RealisedAdvice{
				{ID: "adv-1", ResourceID: "gone", Team: "nlp", Status: RealisedMeasured, RealisedMonthlySavings: 300, ExpectedMonthlySavings: 280},
				{ID: "adv-2", ResourceID: "b", Team: "cv", Status: RealisedTooEarly},
			}},
	}
	for _, tc := range []struct {
		team                   string
		hidden, done, realised int
		saved                  float64
	}{
		{"nlp", 1, 0, 1, 300},
		{"cv", 1, 1, 1, 0},
	} {
		s := r.ForTeam(tc.team).Advice
		if s == nil || s.Hidden != tc.hidden || s.Done != tc.done || len(s.Realised) != tc.realised {
			t.Errorf("%s: advice %+v, want %d hidden, %d done, %d realised", tc.team, s, tc.hidden, tc.done, tc.realised)
			continue
		}
		testnum.NearRel(t, tc.team+" realised", s.RealisedMonthlySavings, tc.saved, 1e-6)
	}
	// A team none of whose advice was decided has no advice section.
	if s := r.ForTeam("infra").Advice; s != nil {
		t.Errorf("infra: advice %+v, want none: nothing about its resources was decided", s)
	}
}

// TestRealisedTeamAfterTheWindow: advice marked done after the report
// window's end (a past week's report run again) is too early in it, and its
// team is still the resource's: finops loads no lines after the window, so
// the lines around the decision cannot say it, but the report's own row of
// the resource does (ml, its team tag).
func TestRealisedTeamAfterTheWindow(t *testing.T) {
	end := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	card := hourlyLines("card", "10", end.AddDate(0, 0, -7), 7*24)
	for i := range card {
		card[i].Tags = map[string]string{"team": "ml"}
	}
	decided := end.AddDate(0, 0, 10) // Dec 3, after the window
	in := &Input{
		Window: Window{Start: end.AddDate(0, 0, -7), End: end},
		Lines:  card,
		Params: DefaultParams(),
		Advice: AdviceInput{Decisions: []AdviceDecision{{ID: AdviceID("card", ActionRelease), Decision: AdviceDone,
			DecidedAt: decided, ResourceID: "card", Action: ActionRelease, Currency: "USD"}}},
	}
	res, err := AnalyzeContext(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Advice == nil || len(res.Advice.Realised) != 1 {
		t.Fatalf("advice %+v, want one realised entry", res.Advice)
	}
	if r := res.Advice.Realised[0]; r.Status != RealisedTooEarly || r.Team != "ml" {
		t.Errorf("realised %+v: want too_early, team ml", r)
	}
}

// TestLocalDayCount: whole local days between two local midnights, a DST
// day counting one.
func TestLocalDayCount(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, berlin) }
	for _, tc := range []struct {
		name       string
		start, end time.Time
		want       int
	}{
		// Oct 20 to Oct 30: 10 days, Oct 25 (clocks back, 25 h) among them;
		// 10 × 24 h + 1 h = 241 h, which 24-hour days would read as 10.04.
		{"over the DST change", at(10, 20), at(10, 30), 10},
		// Mar 28 to Apr 1: 4 days, Mar 29 (clocks forward, 23 h) among them.
		{"over the spring change", at(3, 28), at(4, 1), 4},
		{"one day", at(11, 3), at(11, 4), 1},
		{"none", at(11, 3), at(11, 3), 0},
		{"end before start", at(11, 4), at(11, 3), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := localDayCount(tc.start.UTC(), tc.end.UTC(), berlin); got != tc.want {
				t.Errorf("localDayCount(%v, %v) = %d, want %d", tc.start, tc.end, got, tc.want)
			}
		})
	}
}

// TestAdviceList: the ids Analyze assigns are the list's; a snooze hides
// its advice until its date, then it is open again; --all lists it anyway.
func TestAdviceList(t *testing.T) {
	r, err := Analyze(busy3h("3000", 3))
	if err != nil {
		t.Fatal(err)
	}
	id := AdviceID("card", ActionSwitchToHourly) // monthly(cost) bills resource "card"
	if len(r.Recommendations) != 1 || r.Recommendations[0].ID != id {
		t.Fatalf("recommendations %+v, want one with id %s", r.Recommendations, id)
	}
	until := time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC)
	ds := []AdviceDecision{{ID: id, Decision: AdviceSnoozed, Until: until}}
	for _, tc := range []struct {
		name string
		at   time.Time
		all  bool
		want int // entries
		open bool
	}{
		{"snoozed", until.Add(-time.Second), false, 0, false},
		{"snoozed, all", until.Add(-time.Second), true, 1, false},
		{"snooze over", until, false, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AdviceList(r.Recommendations, ds, tc.at, tc.all)
			if len(got) != tc.want {
				t.Fatalf("%d entries, want %d: %+v", len(got), tc.want, got)
			}
			if tc.want > 0 && (got[0].ID != id || got[0].Open != tc.open || got[0].Decision == nil) {
				t.Errorf("entry %+v, want %s open %v with its decision", got[0], id, tc.open)
			}
		})
	}
}
