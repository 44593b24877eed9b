package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops"
)

// AdviceDecision is one row of advice_decisions (migration 12): what someone
// decided about one piece of advice with `finops advice`.
type AdviceDecision struct {
	ID         string
	Decision   string    // done, dismissed, snoozed
	Until      time.Time // snoozed only; zero otherwise
	Why        string    // untrusted text, stored as typed
	DecidedAt  time.Time
	ResourceID string
	Action     string
	// Baseline and Expected are the advice's current monthly cost and
	// monthly saving when decided, in Currency; 0 when unknown.
	Baseline, Expected float64
	Currency           string
}

// RecordAdviceDecision appends a decision: earlier ones of the same id stay,
// as its history.
func (s *Store) RecordAdviceDecision(ctx context.Context, d AdviceDecision) error {
	var until, baseline, expected any
	if !d.Until.IsZero() {
		until = d.Until.Unix()
	}
	if d.Baseline != 0 {
		baseline = d.Baseline
	}
	if d.Expected != 0 {
		expected = d.Expected
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO advice_decisions
		(id, decision, until, why, decided_at, resource_id, action, baseline, expected, currency)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.Decision, until, d.Why, d.DecidedAt.Unix(), d.ResourceID, d.Action, baseline, expected, d.Currency); err != nil {
		return fmt.Errorf("store: record advice decision %s: %w", d.ID, err)
	}
	return nil
}

// AdviceDecisions returns the current decision of every advice id that has
// one: its latest row (by insertion, whatever the clock said), by id.
func (s *Store) AdviceDecisions(ctx context.Context) ([]AdviceDecision, error) {
	return s.adviceDecisions(ctx, `WHERE seq = (SELECT max(seq) FROM advice_decisions b WHERE b.id = a.id) ORDER BY id`)
}

// AdviceHistory returns every decision about advice id, oldest first.
func (s *Store) AdviceHistory(ctx context.Context, id string) ([]AdviceDecision, error) {
	return s.adviceDecisions(ctx, `WHERE id = ? ORDER BY seq`, id)
}

func (s *Store) adviceDecisions(ctx context.Context, where string, args ...any) ([]AdviceDecision, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, decision, until, why, decided_at, resource_id, action,
		baseline, expected, currency FROM advice_decisions a `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read advice decisions: %w", err)
	}
	defer rows.Close()
	var out []AdviceDecision
	for rows.Next() {
		var d AdviceDecision
		var until sql.NullInt64
		var at int64
		var baseline, expected sql.NullFloat64
		if err := rows.Scan(&d.ID, &d.Decision, &until, &d.Why, &at, &d.ResourceID, &d.Action,
			&baseline, &expected, &d.Currency); err != nil {
			return nil, fmt.Errorf("store: read advice decisions: %w", err)
		}
		if until.Valid {
			d.Until = time.Unix(until.Int64, 0).UTC()
		}
		d.DecidedAt = time.Unix(at, 0).UTC()
		d.Baseline, d.Expected = baseline.Float64, expected.Float64
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read advice decisions: %w", err)
	}
	return out, nil
}

// ResourceLines returns the billing lines overlapping [from, to) whose
// resource id or name is one of resources (without regard to case, as the
// analysis matches them): the lines the realised saving of advice marked
// done is measured on, over months, without holding every other line.
func (s *Store) ResourceLines(ctx context.Context, from, to time.Time, resources []string) ([]finops.BillingLine, error) {
	if len(resources) == 0 || !to.After(from) {
		return nil, nil
	}
	want := map[string]bool{}
	for _, r := range resources {
		want[strings.ToLower(r)] = true
	}
	var out []finops.BillingLine
	var l finops.BillingLine
	err := s.scanLines(ctx, from, to, func() *finops.BillingLine {
		l = finops.BillingLine{}
		return &l
	}, func(l *finops.BillingLine) error {
		if want[strings.ToLower(l.ResourceID)] || want[strings.ToLower(l.ResourceName)] {
			out = append(out, *l)
		}
		return nil
	})
	return out, err
}
