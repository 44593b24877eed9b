package advicejob

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "finops.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestSnoozeUntil: without --until, the start of the day 28 days after
// today in the config's zone; a date is that day's start, and must be in
// the future, a real date and of a year a report may name.
func TestSnoozeUntil(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	// 2026-11-30 03:00 UTC is 11:00 in Shanghai on the 30th.
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		flag    string
		want    time.Time
		wantErr string
	}{
		// 30 Nov + 28 days = 28 Dec, 00:00 in Shanghai = 27 Dec 16:00 UTC.
		{"", time.Date(2026, 12, 27, 16, 0, 0, 0, time.UTC), ""},
		{"2027-01-05", time.Date(2027, 1, 4, 16, 0, 0, 0, time.UTC), ""},
		{"2026-11-30", time.Time{}, "is not in the future"},
		{"2026-13-01", time.Time{}, "want a date like"},
		{"2101-01-01", time.Time{}, "the year must be between 2000 and 2100"},
	} {
		got, err := SnoozeUntil(tc.flag, now, shanghai)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, new(reportjob.ConfigError)) {
				t.Errorf("SnoozeUntil(%q): %v, want a ConfigError saying %q", tc.flag, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("SnoozeUntil(%q) = %s, %v; want %s", tc.flag, got, err, tc.want)
		}
	}
}

// TestLastRun: the period of the latest run whose report was written (ok or
// partial), as a week or as its first and last day; a failed report's run
// is passed over; none at all is the zero Period.
func TestLastRun(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		runs []struct{ period, report string }
		want config.Period
	}{
		{"none", nil, config.Period{}},
		{"a week", []struct{ period, report string }{{"2026-W47", store.StageOK}}, config.Period{Week: "2026-W47"}},
		{"the latest written, partial", []struct{ period, report string }{
			{"2026-W47", store.StageOK}, {"2026-11-01_2026-11-30", store.StagePartial}, {"2026-W48", store.StageFailed},
		}, config.Period{From: "2026-11-01", To: "2026-11-30"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			for _, r := range tc.runs {
				run, err := st.BeginRun(ctx, r.period)
				if err != nil {
					t.Fatal(err)
				}
				if err := st.SetStage(ctx, run.ID, store.StageReport, r.report); err != nil {
					t.Fatal(err)
				}
				if err := st.FinishRun(ctx, run.ID, store.RunOK, ""); err != nil {
					t.Fatal(err)
				}
			}
			if got, err := LastRun(ctx, st); err != nil || got != tc.want {
				t.Errorf("LastRun = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestDecide: a decision about an advice id is recorded with what the
// advice is and was expected to save, and lists it as decided; an unknown
// id is a ConfigError that records nothing.
func TestDecide(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	rec := analysis.Recommendation{ResourceID: "box-1", Action: analysis.ActionRelease, CurrentMonthlyCost: 900, MonthlySavings: 900}
	s := &State{Window: analysis.Window{Label: "2026-W48"}, Result: &analysis.Result{Currency: "USD", Recommendations: []analysis.Recommendation{rec}}}
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	id := analysis.AdviceID("box-1", analysis.ActionRelease)
	if _, _, err := s.Decide(ctx, st, "zzzzzz", store.AdviceDecision{Decision: analysis.AdviceDone, DecidedAt: now}, now); !errors.As(err, new(reportjob.ConfigError)) {
		t.Errorf("an unknown id: %v, want a ConfigError", err)
	}
	e, d, err := s.Decide(ctx, st, id, store.AdviceDecision{Decision: analysis.AdviceDismissed, Why: "kept for demos", DecidedAt: now}, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != id || d.ResourceID != "box-1" || d.Action != analysis.ActionRelease || d.Expected != 900 || d.Currency != "USD" {
		t.Errorf("decided %+v about %+v", d, e)
	}
	if s.Decisions, err = reportjob.Decisions(ctx, st); err != nil {
		t.Fatal(err)
	}
	if len(s.Decisions) != 1 || len(s.List(now, false)) != 0 {
		t.Fatalf("%d decisions, %d open; want 1 and none", len(s.Decisions), len(s.List(now, false)))
	}
	r := s.ListResult(s.List(now, true))
	if len(r.Advice) != 1 || r.Advice[0].Decision != analysis.AdviceDismissed || r.Advice[0].Why != "kept for demos" || r.Advice[0].Open {
		t.Errorf("advice list --all: %+v", r)
	}
	if got := s.DecisionResult(e, d).Command; got != "advice dismiss" {
		t.Errorf("command %q, want advice dismiss", got)
	}
}
