package store

import (
	"context"
	"database/sql"
	"fmt"
)

// preparer prepares a writer's statements on its transaction and keeps the
// first error, so a constructor prepares them all and checks once.
type preparer struct {
	ctx context.Context
	tx  *sql.Tx
	err error
}

func (p *preparer) prep(q string) *sql.Stmt {
	if p.err != nil {
		return nil
	}
	st, err := p.tx.PrepareContext(p.ctx, q)
	p.err = err
	return st
}

// telemetryCache is the page cache (KiB) while telemetry is written (an
// import rolling up minutes, a compaction). SQLite keeps a transaction's
// dirty pages in its cache up to cache_size (32 MiB in this build) before
// spilling them to the WAL; 4 MiB keeps memory flat from small files to
// large ones at no measurable cost in time (docs/BENCHMARKS.md).
const telemetryCache = 4096

// smallCache lowers the page cache of tx's connection to telemetryCache and
// returns the function that puts the previous size back, to call before the
// commit (the connection goes back to the pool).
func smallCache(ctx context.Context, tx *sql.Tx) (restore func() error, err error) {
	var cur int64
	if err := tx.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cur); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", telemetryCache)); err != nil {
		return nil, err
	}
	return func() error {
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", cur))
		return err
	}, nil
}
