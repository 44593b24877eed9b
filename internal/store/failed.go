package store

import (
	"context"
	"fmt"
	"time"
)

// FailedImport is a file or delivery that did not import: the reports say so
// until the same file, or another delivery of its period, imports.
type FailedImport struct {
	URI      string
	Period   string // the billing period of a delivery, "" for a lone file
	Delivery string
	Error    string
	At       time.Time
}

// RecordFailedImport remembers a failed import, in a transaction of its own
// (the import's was rolled back). A failure of the same file and delivery
// replaces the one before.
func (s *Store) RecordFailedImport(ctx context.Context, f FailedImport) error {
	at := f.At
	if at.IsZero() {
		at = s.now()
	}
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO failed_imports (uri, period_key, delivery, error, failed_at)
		VALUES (?, ?, ?, ?, ?)`, f.URI, f.Period, f.Delivery, f.Error, at.Unix())
	if err != nil {
		return fmt.Errorf("store: record failed import of %s: %w", f.URI, err)
	}
	return nil
}

// FailedImports lists the failures no later import has made good, oldest
// first.
func (s *Store) FailedImports(ctx context.Context) ([]FailedImport, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT uri, period_key, delivery, error, failed_at FROM failed_imports
		ORDER BY failed_at, uri`)
	if err != nil {
		return nil, fmt.Errorf("store: list failed imports: %w", err)
	}
	defer rows.Close()
	var out []FailedImport
	for rows.Next() {
		var f FailedImport
		var at int64
		if err := rows.Scan(&f.URI, &f.Period, &f.Delivery, &f.Error, &at); err != nil {
			return nil, fmt.Errorf("store: list failed imports: %w", err)
		}
		f.At = time.Unix(at, 0).UTC()
		out = append(out, f)
	}
	return out, rows.Err()
}
