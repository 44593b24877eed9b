package store

import (
	"context"
	"fmt"
)

// migrations are applied in order; PRAGMA user_version records how many ran.
// Never edit a released migration: append a new one.
var migrations = []string{
	// 1: the first schema.
	`
CREATE TABLE source_files (
	id               INTEGER PRIMARY KEY,
	uri              TEXT NOT NULL,
	sha256           TEXT NOT NULL UNIQUE,
	format           TEXT NOT NULL,
	kind             TEXT NOT NULL,
	host             TEXT,
	period_start     INTEGER,          -- unix seconds
	period_end       INTEGER,
	rows             INTEGER NOT NULL,
	rows_rejected    INTEGER NOT NULL DEFAULT 0,
	currency         TEXT,
	total_cost       TEXT,             -- exact decimal
	gpu_lines        INTEGER NOT NULL DEFAULT 0,
	sample_interval_ms INTEGER,
	imported_at      INTEGER NOT NULL
);

CREATE TABLE rejected_rows (
	source_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
	line      INTEGER NOT NULL,
	field     TEXT,
	message   TEXT NOT NULL
);

CREATE TABLE billing_lines (
	id                INTEGER PRIMARY KEY,
	source_id         INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
	line              INTEGER NOT NULL,
	provider          TEXT,
	billing_account   TEXT,
	sub_account       TEXT,
	charge_start      INTEGER NOT NULL,  -- unix seconds, inclusive
	charge_end        INTEGER NOT NULL,  -- unix seconds, exclusive
	charge_category   TEXT NOT NULL,
	charge_class      TEXT,
	charge_frequency  TEXT,
	pricing_category  TEXT,
	pricing_mode      TEXT,
	commitment_status TEXT,
	commitment_id     TEXT,
	resource_id       TEXT,
	resource_name     TEXT,
	resource_type     TEXT,
	service           TEXT,
	sku               TEXT,
	instance_type     TEXT,
	region            TEXT,
	gpu_model         TEXT,
	gpu_count         INTEGER NOT NULL DEFAULT 0,
	billed_cost       TEXT,              -- exact decimals; NULL is a null cell
	effective_cost    TEXT,
	list_cost         TEXT,
	currency          TEXT,
	usage_quantity    TEXT,
	usage_unit        TEXT,
	tags              TEXT               -- JSON object
);
CREATE INDEX billing_lines_start ON billing_lines(charge_start);
CREATE INDEX billing_lines_source ON billing_lines(source_id);

CREATE TABLE gpus (
	id        INTEGER PRIMARY KEY,
	gpu_key   TEXT NOT NULL UNIQUE,     -- UUID, else host/index
	uuid      TEXT,
	host      TEXT,
	idx       INTEGER,
	model     TEXT,
	memory_total_mib REAL
);

CREATE TABLE gpu_samples (
	gpu_id    INTEGER NOT NULL REFERENCES gpus(id),
	ts        INTEGER NOT NULL,         -- unix milliseconds
	source_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
	util      REAL,                     -- 0-100, NULL when the source said N/A
	mem_used_mib REAL,
	power_w   REAL,
	PRIMARY KEY (gpu_id, ts)
) WITHOUT ROWID;
CREATE INDEX gpu_samples_source ON gpu_samples(source_id);

CREATE TABLE teams (
	name           TEXT PRIMARY KEY,
	tag            TEXT,
	monthly_budget REAL,
	leads          TEXT                 -- JSON array
);

CREATE TABLE tasks (
	id    INTEGER PRIMARY KEY,
	name  TEXT NOT NULL UNIQUE,
	team  TEXT,
	kind  TEXT,
	unit  TEXT
);

CREATE TABLE task_runs (
	id        INTEGER PRIMARY KEY,
	task_id   INTEGER NOT NULL REFERENCES tasks(id),
	source_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
	line      INTEGER NOT NULL,
	resource  TEXT NOT NULL,
	gpus      TEXT,                     -- JSON array of GPU keys; empty = all
	start     INTEGER NOT NULL,
	end       INTEGER NOT NULL,
	units     TEXT,
	UNIQUE (task_id, resource, start)
);
CREATE INDEX task_runs_start ON task_runs(start);
`,
}

func (s *Store) migrate(ctx context.Context) error {
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("store: read schema version: %w", err)
	}
	for version < len(migrations) {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
		// The transaction is immediate: under the write lock, read the version
		// again, as another process may have migrated while this one waited.
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: read schema version: %w", err)
		}
		if version >= len(migrations) {
			tx.Rollback()
			break
		}
		if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migration %d: %w", version+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migration %d: %w", version+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store: migration %d: %w", version+1, err)
		}
		version++
	}
	if version > len(migrations) {
		return fmt.Errorf("store: %s has schema version %d, newer than this finops (%d): upgrade finops", s.path, version, len(migrations))
	}
	return nil
}

// SchemaVersion is the number of migrations this build knows.
func SchemaVersion() int { return len(migrations) }
