package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestWatchSavings: each action's avoided spend is the rate the watch
// recorded × the hours from the action to its resource's next busy minute
// (buildGrid's active class on any of its GPUs), or to the window's end.
// Every expectation is worked out by hand from the telemetry laid out below.
func TestWatchSavings(t *testing.T) {
	day := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	h := func(hh, mm int) time.Time {
		return day.Add(time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute)
	}
	win := Window{Start: day, End: day.Add(24 * time.Hour), Label: "2026-11-30"}
	var lines []finops.BillingLine
	for _, res := range []string{"a", "b", "c"} {
		for _, l := range hourlyLines(res, "12", day, 24) {
			l.Currency = "CNY"
			if res == "c" {
				l.GPUCount = 2
			}
			lines = append(lines, l)
		}
	}
	// a: busy, idle from 13:00, stopped at 14:00 (silent), busy again at 20:30.
	a0 := series("a/0", "a", day, seg{13 * 60, 50}, seg{60, 0}, seg{390, -1}, seg{210, 60})
	// b: idle from 12:00 to the end of the day.
	b0 := series("b/0", "b", day, seg{12 * 60, 50}, seg{12 * 60, 0})
	// c: two GPUs, silent from 13:00. c/0 comes back at 18:00 idle (2% for an
	// hour: idle, not busy) and is busy from 19:00; c/1 is busy from 18:30.
	c0 := series("c/0", "c", day, seg{13 * 60, 50}, seg{5 * 60, -1}, seg{60, 2}, seg{5 * 60, 50})
	c1 := series("c/1", "c", day, seg{13 * 60, 50}, seg{330, -1}, seg{330, 50})
	c1.Index = 1
	code := func(c int) *int { return &c }
	acts := []WatchDecision{
		{DecidedAt: h(13, 59), Finished: h(14, 0), Resource: "a", Team: "nlp", Action: "stop", Outcome: "done", ExitCode: code(0), Rate: 12, RateKnown: true, Currency: "CNY"},
		{DecidedAt: h(14, 5), Finished: h(14, 6), Resource: "a", Action: "stop", Outcome: "failed", ExitCode: code(1), Rate: 12, RateKnown: true, Currency: "CNY"},
		{DecidedAt: h(14, 0), Resource: "b", Action: "stop", Outcome: "dry-run", Rate: 12, RateKnown: true, Currency: "CNY"},
		{DecidedAt: h(14, 0), Finished: h(14, 0).Add(30 * time.Second), Resource: "c", Action: "release", Outcome: "done", ExitCode: code(0), Rate: 4, RateKnown: true, Currency: "CNY"},
		{DecidedAt: h(14, 0), Finished: h(14, 0), Resource: "gone", Action: "stop", Outcome: "done", ExitCode: code(0), Rate: 3, RateKnown: true, Currency: "CNY"},
		{DecidedAt: h(15, 0), Finished: h(15, 0), Resource: "a", Action: "stop", Outcome: "done", ExitCode: code(0)},
		{DecidedAt: h(16, 0), Finished: h(16, 0), Resource: "b", Action: "stop", Outcome: "done", ExitCode: code(0), Rate: 10, RateKnown: true, Currency: "EUR"},
		{DecidedAt: h(16, 0), Resource: "b", Action: "stop", Outcome: "refused", Rate: 12, RateKnown: true, Currency: "CNY"},
	}
	in := &Input{Window: win, Lookback: win, Lines: lines, GPUs: []finops.GPUSeries{a0, b0, c0, c1},
		Resources: []Resource{{ID: "a", Team: "nlp"}}, Params: DefaultParams(), SkipTrends: true,
		Watch: &WatchInput{Alerts: []WatchAlert{{At: h(13, 30), Resource: "a", Event: "idle", Channel: "slack#0"}}, Actions: acts}}
	res, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	w := res.Watch
	if w == nil || len(w.Actions) != len(acts) || len(w.Alerts) != 1 {
		t.Fatalf("watch %+v", w)
	}
	for i, tt := range []struct {
		name     string
		until    time.Time
		nextBusy bool
		hours    float64
		saved    *float64
	}{
		{"stopped 14:00 at 12/h, busy 20:30: 6.5 h × 12", h(20, 30), true, 6.5, new(78.0)},
		{"failed: saves nothing", time.Time{}, false, 0, nil},
		{"dry run 14:00, idle to the end: 10 h × 12 would have", win.End, false, 10, new(120.0)},
		{"released 14:00:30, c/1 busy 18:30 before c/0 19:00: 4h29m30s × 4", h(18, 30), true, 4.4916666667, new(17.966666667)},
		{"gone from the bill: to the end, 10 h × 3", win.End, false, 10, new(30.0)},
		{"no rate: hours but no money", h(20, 30), true, 5.5, nil},
		{"a rate in EUR without fx: not counted", win.End, false, 8, nil},
		{"refused: saves nothing", time.Time{}, false, 0, nil},
	} {
		got := w.Actions[i]
		if !got.Until.Equal(tt.until) || got.NextBusy != tt.nextBusy {
			t.Errorf("%s: until %s (next busy %v), want %s (%v)", tt.name, got.Until, got.NextBusy, tt.until, tt.nextBusy)
		}
		testnum.NearRel(t, tt.name+" hours", got.Hours, tt.hours, 1e-6)
		switch {
		case (got.Saved == nil) != (tt.saved == nil):
			t.Errorf("%s: saved %v, want %v", tt.name, got.Saved, tt.saved)
		case got.Saved != nil:
			testnum.NearRel(t, tt.name+" saved", *got.Saved, *tt.saved, 1e-6)
		}
	}
	if !w.Actions[2].DryRun || w.Actions[0].DryRun || w.Actions[0].Team != "nlp" || w.Actions[1].Team != unassigned {
		t.Errorf("dry run or team wrong: %+v", w.Actions)
	}
	testnum.NearRel(t, "saved", w.Saved, 78+17.966666667+30, 1e-6)
	testnum.NearRel(t, "would have saved", w.WouldHaveSaved, 120, 1e-6)
	if !strings.Contains(strings.Join(res.DataQuality.Warnings, "\n"), "fx.EUR") {
		t.Errorf("no warning about the EUR rate: %q", res.DataQuality.Warnings)
	}

	nlp := res.ForTeam("nlp")
	if nlp == nil || nlp.Watch == nil || len(nlp.Watch.Actions) != 1 || len(nlp.Watch.Alerts) != 0 || nlp.Watch.Saved != 78 {
		t.Errorf("nlp's slice: %+v, want its one action and its 78", nlp)
	}

	in.Watch = nil
	if res, err = Analyze(in); err != nil || res.Watch != nil {
		t.Errorf("no watch activity: Watch %+v, %v; want nil (no section)", res.Watch, err)
	}
}
