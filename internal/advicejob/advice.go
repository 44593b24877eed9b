// Package advicejob is what `finops advice` does (analysis/advice.go
// decides what is open; store/advice.go keeps the decisions): the advice of
// a window found — by default that of the latest report `finops run` made —
// and analysed, listed by id, and a decision about one recorded. cmd keeps
// the flags, the run lock and the printing.
package advicejob

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/store"
)

// State is a window's advice, all of it (no decision applied), and the
// current decisions.
type State struct {
	Window    analysis.Window
	Result    *analysis.Result
	Decisions []analysis.AdviceDecision
	Teams     []string // the configured teams' names, for --team
}

// Open analyses win's advice (no hourly rows: the list does not show them)
// with at most holdLines billing lines held, and reads the decisions.
func Open(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window, holdLines int) (*State, error) {
	in, err := reportjob.Load(ctx, st, c, win, reportjob.Options{Outlines: true, HoldLines: holdLines})
	if err != nil {
		return nil, err
	}
	in.SkipHourly = true
	s := &State{Window: win}
	for _, t := range c.Teams {
		s.Teams = append(s.Teams, t.Name)
	}
	if s.Result, err = reportjob.Analyze(ctx, in); err != nil {
		return nil, err
	}
	if s.Decisions, err = reportjob.Decisions(ctx, st); err != nil {
		return nil, err
	}
	return s, nil
}

// List is the window's advice at now: the open advice, or with all the
// decided advice too, each with its decision.
func (s *State) List(now time.Time, all bool) []analysis.AdviceEntry {
	return analysis.AdviceList(s.Result.Recommendations, s.Decisions, now, all)
}

// Decide records d about the advice id names (an unknown id is a
// reportjob.ConfigError naming the nearest), completed with what the
// advice is and what it was expected to save, and returns both. The caller
// holds the run lock.
func (s *State) Decide(ctx context.Context, st *store.Store, id string, d store.AdviceDecision, now time.Time) (*analysis.AdviceEntry, store.AdviceDecision, error) {
	e, err := analysis.FindAdvice(s.List(now, true), id)
	if err != nil {
		return e, d, reportjob.ConfigError{Err: err}
	}
	d.ID, d.ResourceID, d.Action = e.ID, e.ResourceID, e.Action
	d.Baseline, d.Expected, d.Currency = e.CurrentMonthlyCost, e.MonthlySavings, s.Result.Currency
	return e, d, st.RecordAdviceDecision(ctx, d)
}

// LastRun is the period of the latest report `finops run` made (the one
// its team leads were sent): an ISO week, or the first and last day; none
// (zero) is the last complete week.
func LastRun(ctx context.Context, st *store.Store) (config.Period, error) {
	runs, err := st.Runs(ctx, "")
	if err != nil {
		return config.Period{}, err
	}
	for i := len(runs) - 1; i >= 0; i-- {
		if r := runs[i]; r.Report == store.StageOK || r.Report == store.StagePartial {
			if config.IsWeekLabel(r.Period) {
				return config.Period{Week: r.Period}, nil
			}
			if from, to, ok := strings.Cut(r.Period, "_"); ok {
				return config.Period{From: from, To: to}, nil
			}
		}
	}
	return config.Period{}, nil
}

// Verb is the subcommand that records a decision.
func Verb(decision string) string {
	switch decision {
	case analysis.AdviceDismissed:
		return "dismiss"
	case analysis.AdviceSnoozed:
		return "snooze"
	}
	return decision
}

// DefaultSnooze is how long `advice snooze` hides advice without --until.
const DefaultSnooze = 28 * 24 * time.Hour

// SnoozeUntil is the instant a snooze ends: the start of the day flag
// (--until) names, in loc, which must be after now; without it, the start
// of the day 4 weeks from today. A date it refuses is a
// reportjob.ConfigError.
func SnoozeUntil(flag string, now time.Time, loc *time.Location) (time.Time, error) {
	if flag == "" {
		y, mo, d := now.In(loc).Add(DefaultSnooze).Date()
		return time.Date(y, mo, d, 0, 0, 0, 0, loc).UTC(), nil
	}
	t, err := time.ParseInLocation("2006-01-02", flag, loc)
	if err != nil {
		err = fmt.Errorf("--until %q: want a date like 2026-12-31", flag)
	} else if err = config.CheckYear("--until", flag, t.Year()); err == nil && !t.After(now) {
		err = fmt.Errorf("--until %s is not in the future: give a later date", flag)
	}
	if err != nil {
		return time.Time{}, reportjob.ConfigError{Err: err}
	}
	return t.UTC(), nil
}
