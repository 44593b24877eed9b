package advicejob

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/store"
)

// TestWriteList: no advice says which (open, or any); a table gives each
// entry's state in the config's zone — open, decided on a day, snoozed
// until a day and "(passed)" once that day is behind — with a resource id
// and a reason of one line.
func TestWriteList(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	s := &State{Window: analysis.Window{Label: "2026-W48"}, Result: &analysis.Result{Currency: "USD"}}
	// Decided 2026-11-29 20:00 UTC: the 30th in Shanghai.
	at := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	until := time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC) // the 28th, 00:00 in Shanghai
	entries := []analysis.AdviceEntry{
		{Recommendation: analysis.Recommendation{ID: "aaaaaa", ResourceID: "box\x1b[31m-1", Action: analysis.ActionRelease, MonthlySavings: 900}, Open: true},
		{Recommendation: analysis.Recommendation{ID: "bbbbbb", ResourceID: "box-2", Action: analysis.ActionSwitchToSpot, MonthlySavings: 100},
			Decision: &analysis.AdviceDecision{Decision: analysis.AdviceDone, DecidedAt: at, Why: "moved\nto spot"}},
		{Recommendation: analysis.Recommendation{ID: "cccccc", ResourceID: "box-3", Action: analysis.ActionStopWhenIdle, MonthlySavings: 50},
			Decision: &analysis.AdviceDecision{Decision: analysis.AdviceSnoozed, DecidedAt: at, Until: until}, Open: true},
	}
	for _, tc := range []struct {
		name    string
		entries []analysis.AdviceEntry
		all     bool
		want    []string
	}{
		{"none open", nil, false, []string{"no open advice in 2026-W48"}},
		{"none", nil, true, []string{"no advice in 2026-W48"}},
		{"a table", entries, true, []string{"advice of 2026-W48", "aaaaaa", "open", "done 2026-11-30", "snoozed until 2026-11-28 (passed)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := s.WriteList(&b, tc.entries, tc.all, shanghai); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			// A header and a line each, nothing split by a reason's newline
			// nor coloured by a resource id.
			if lines := strings.Count(out, "\n"); len(tc.entries) > 0 && lines != 2+len(tc.entries) || strings.Contains(out, "\x1b") {
				t.Errorf("%d lines, want %d, none with an escape:\n%q", lines, 2+len(tc.entries), out)
			}
		})
	}
}

// TestDecisionLine: the action in words, and a snooze's end in the config's
// zone.
func TestDecisionLine(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	e := &analysis.AdviceEntry{Recommendation: analysis.Recommendation{ID: "aaaaaa", ResourceID: "box-1", Action: analysis.ActionStopWhenIdle}}
	for _, tc := range []struct {
		d    store.AdviceDecision
		want string
	}{
		{store.AdviceDecision{Decision: analysis.AdviceDone}, "aaaaaa (stop when idle box-1) done"},
		// 2026-12-27 16:00 UTC is the 28th, 00:00 in Shanghai.
		{store.AdviceDecision{Decision: analysis.AdviceSnoozed, Until: time.Date(2026, 12, 27, 16, 0, 0, 0, time.UTC)},
			"aaaaaa (stop when idle box-1) snoozed until 2026-12-28"},
	} {
		if got := DecisionLine(e, tc.d, shanghai); got != tc.want {
			t.Errorf("DecisionLine = %q, want %q", got, tc.want)
		}
	}
}
