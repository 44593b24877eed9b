package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// Team is a configured team as stored.
type Team struct {
	Name          string
	Tag           string
	MonthlyBudget *float64
	Leads         []string
}

// SyncTeams makes the teams table equal to the configured teams, so the
// database alone says who a snapshot's numbers were reported to.
func (s *Store) SyncTeams(ctx context.Context, teams []Team) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: sync teams: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM teams`); err != nil {
		return fmt.Errorf("store: sync teams: %w", err)
	}
	for _, t := range teams {
		leads, err := json.Marshal(t.Leads)
		if err != nil {
			return fmt.Errorf("store: sync teams: %w", err)
		}
		var budget any
		if t.MonthlyBudget != nil {
			budget = *t.MonthlyBudget
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO teams (name, tag, monthly_budget, leads) VALUES (?,?,?,?)`,
			t.Name, nullString(t.Tag), budget, string(leads)); err != nil {
			return fmt.Errorf("store: sync teams: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: sync teams: %w", err)
	}
	return nil
}
