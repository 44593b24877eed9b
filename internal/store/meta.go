package store

import (
	"context"
	"fmt"
)

// DatabaseID is the database's identity: 32 hex digits drawn at random
// when the database was made (or migrated to schema 16), the same for every
// report from it and for a snapshot restored, and different for another
// database. The JSON summary carries it (report.Meta.DatabaseID) so that
// `finops rollup` refuses two summaries of one database and period.
func (s *Store) DatabaseID(ctx context.Context) (string, error) {
	var id string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'database_id'`).Scan(&id); err != nil {
		return "", fmt.Errorf("store: database id of %s: %w", s.path, err)
	}
	return id, nil
}
