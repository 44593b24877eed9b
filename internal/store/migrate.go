package store

import (
	"context"
	"database/sql"
	"errors"
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
	// 2: telemetry as per-GPU-minute rollups instead of every raw sample, so
	// the database grows with GPUs × minutes, not with the sampling rate.
	// offsets keeps each rolled-up sample's millisecond within the minute
	// (2-byte big-endian, sorted): a sample delivered again by an overlapping
	// log or a re-fetched Prometheus day is recognised and not counted twice.
	// gpu_sources remembers which sources reported each GPU (their sampling
	// interval decides how far a sample reaches on the minute grid).
	`
CREATE TABLE gpu_minutes (
	gpu_id       INTEGER NOT NULL REFERENCES gpus(id),
	minute       INTEGER NOT NULL,          -- unix seconds / 60 (UTC)
	n            INTEGER NOT NULL,          -- samples rolled up
	util_sum     REAL NOT NULL DEFAULT 0,   -- 0-100 each
	util_n       INTEGER NOT NULL DEFAULT 0, -- samples with a utilization (N/A ones are not)
	mem_used_max REAL,                      -- MiB
	power_sum    REAL NOT NULL DEFAULT 0,
	power_n      INTEGER NOT NULL DEFAULT 0,
	offsets      BLOB NOT NULL,
	-- The first source to write the minute, for the record. No foreign key
	-- and no index: a minute merges samples of several sources, so deleting
	-- one source could not take its samples back out of it anyway, and every
	-- source_files delete would have to search this, the largest table.
	source_id    INTEGER NOT NULL,
	PRIMARY KEY (gpu_id, minute)
) WITHOUT ROWID;

CREATE TABLE gpu_sources (
	gpu_id    INTEGER NOT NULL REFERENCES gpus(id),
	source_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
	PRIMARY KEY (gpu_id, source_id)
) WITHOUT ROWID;
CREATE INDEX gpu_sources_source ON gpu_sources(source_id);

INSERT INTO gpu_minutes (gpu_id, minute, n, util_sum, util_n, mem_used_max, power_sum, power_n, offsets, source_id)
	SELECT gpu_id, ts / 60000, count(*), coalesce(sum(util), 0), count(util), max(mem_used_mib),
		coalesce(sum(power_w), 0), count(power_w),
		unhex(group_concat(printf('%04X', ts % 60000), '' ORDER BY ts)), min(source_id)
	FROM gpu_samples GROUP BY gpu_id, ts / 60000;
INSERT INTO gpu_sources (gpu_id, source_id) SELECT DISTINCT gpu_id, source_id FROM gpu_samples;
DROP TABLE gpu_samples;
`,
	// 3: the run ledger: what each `finops run` did, what it uploaded where,
	// and which recipient got which email, so a run retries what did not go
	// out and never sends twice what did (store/ledger.go).
	`
CREATE TABLE runs (
	id            INTEGER PRIMARY KEY,
	period        TEXT NOT NULL,            -- report label, e.g. 2026-W48
	started_at    INTEGER NOT NULL,         -- unix seconds
	finished_at   INTEGER,
	status        TEXT NOT NULL,            -- running, ok, partial, publish_failed, failed, interrupted
	ingest_status TEXT,                     -- per stage: ok, partial, failed, skipped, dry_run
	report_status TEXT,
	upload_status TEXT,
	email_status  TEXT,
	error         TEXT,
	pid           INTEGER,
	host          TEXT
);
CREATE INDEX runs_period ON runs(period);

CREATE TABLE run_artifacts (
	period          TEXT NOT NULL,
	name            TEXT NOT NULL,          -- file name, e.g. finops-2026-W48.xlsx
	kind            TEXT NOT NULL,          -- report, snapshot
	path            TEXT,                   -- the local file (reports)
	content_type    TEXT NOT NULL,
	sha256          TEXT NOT NULL,          -- of the bytes to upload
	size            INTEGER NOT NULL,
	run_id          INTEGER REFERENCES runs(id),
	status          TEXT NOT NULL,          -- pending, uploaded, failed, missing, superseded
	s3_key          TEXT,
	uploaded_sha256 TEXT,
	uploaded_at     INTEGER,
	uploaded_run_id INTEGER,
	error           TEXT,
	PRIMARY KEY (period, name)
);

CREATE TABLE run_messages (
	period     TEXT NOT NULL,
	scope      TEXT NOT NULL,               -- a team's name; '' for the all-teams email to admins
	generation INTEGER NOT NULL DEFAULT 1,  -- 1, then +1 per --resend; part of the Message-ID
	message_id TEXT NOT NULL,
	subject    TEXT NOT NULL,
	mime       BLOB,                        -- the message as built; cleared once every recipient has it
	run_id     INTEGER REFERENCES runs(id),
	built_at   INTEGER NOT NULL,
	PRIMARY KEY (period, scope)
);

CREATE TABLE run_emails (
	period    TEXT NOT NULL,
	scope     TEXT NOT NULL,
	recipient TEXT NOT NULL,
	status    TEXT NOT NULL,                -- pending, sending, sent, failed
	attempts  INTEGER NOT NULL DEFAULT 0,
	sent_at   INTEGER,
	run_id    INTEGER,                      -- the last run that tried
	error     TEXT,
	PRIMARY KEY (period, scope, recipient),
	FOREIGN KEY (period, scope) REFERENCES run_messages(period, scope) ON DELETE CASCADE
);
`,
	// 4: restatement keys. Clouds deliver a billing period again and again until
	// it is final; period_key names the period (provider, billing scope,
	// month) and delivery the delivery (manifest assembly, execution or run
	// id; for an Azure file without a manifest, actual or amortized).
	// Importing a source of a period removes the sources of that period with
	// another delivery (store.Import) and remembers them in replaced_files.
	`
ALTER TABLE source_files ADD COLUMN period_key TEXT;
ALTER TABLE source_files ADD COLUMN delivery TEXT;
CREATE INDEX source_files_period ON source_files(period_key);

-- Files a newer delivery replaced: importing them (or their delivery) again
-- changes nothing, so a folder holding several deliveries settles on one.
CREATE TABLE replaced_files (
	sha256      TEXT PRIMARY KEY,
	uri         TEXT NOT NULL,
	period_key  TEXT NOT NULL,
	delivery    TEXT NOT NULL,
	replaced_by TEXT NOT NULL,  -- the delivery that replaced it
	replaced_at INTEGER NOT NULL
);
CREATE INDEX replaced_files_delivery ON replaced_files(period_key, delivery);
`,
	// 5: compacted telemetry. A GPU's minutes older than the hot window move
	// into one row per UTC day (store/days.go): 1,440 float32 means in a blob
	// instead of 1,440 rows, so a year of 1,000 GPUs is a few GB and a report
	// reads a GPU-day in one row. What the analysis reads (the mean
	// utilization of each minute) is kept exactly; the per-sample offsets that
	// recognise a re-delivered sample are not, so a day is compacted only once
	// it is unlikely to be delivered again.
	`
CREATE TABLE gpu_days (
	gpu_id       INTEGER NOT NULL REFERENCES gpus(id),
	day          INTEGER NOT NULL,          -- unix seconds / 86400 (UTC)
	minutes      INTEGER NOT NULL,          -- minutes with a utilization
	util         BLOB NOT NULL,             -- 1,440 float32 little-endian, NaN = no sample
	mem_used_max REAL,                      -- MiB, the day's most
	power_sum    REAL NOT NULL DEFAULT 0,
	power_n      INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (gpu_id, day)
);

-- A report reads the lines that end after its range starts; with a year of
-- history, charge_start alone would walk every older line first (store/overlap.go).
CREATE INDEX billing_lines_end ON billing_lines(charge_end);
`,
	// 6: what an import kept but warned about (a charge period longer than a
	// billing period) and the telemetry readings it dropped (a utilization
	// outside 0–100 %), for the report's data-quality box.
	`
ALTER TABLE source_files ADD COLUMN samples_dropped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE source_files ADD COLUMN warnings INTEGER NOT NULL DEFAULT 0;

-- The first few warnings of a file (source_files.warnings counts them all).
CREATE TABLE source_warnings (
	source_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
	line      INTEGER NOT NULL,
	field     TEXT,
	message   TEXT NOT NULL
);
`,
	// 7: the watch's ledger (finops watch, docs/WATCH.md). A spell is one
	// resource's idle run (or its life past max_lifetime) from the first alert
	// to "back to work" or "released"; at most one is open per resource and
	// kind. Every decision is an event; its messages wait in an outbox per
	// channel (held through quiet hours, sent again after a crash); a command
	// is recorded as pending before it runs, so a pass killed while it runs
	// never runs it again. Times are unix seconds; money is the hourly rate
	// when the spell opened, so the savings can be read back.
	`
CREATE TABLE watch_spells (
	id           INTEGER PRIMARY KEY,
	resource     TEXT NOT NULL,
	team         TEXT NOT NULL DEFAULT '',
	kind         TEXT NOT NULL,            -- idle, lifetime
	since        INTEGER NOT NULL,         -- start of the idle run, or when max_lifetime passed
	opened_at    INTEGER NOT NULL,
	reminded_at  INTEGER NOT NULL,
	graced_at    INTEGER,
	acted        INTEGER NOT NULL DEFAULT 0,
	closed_at    INTEGER,
	close_reason TEXT,                     -- busy, released
	rate         REAL,                     -- per hour, in currency; NULL when unknown
	currency     TEXT NOT NULL DEFAULT '',
	burnt        REAL                      -- at close, at rate; NULL when unknown
);
CREATE UNIQUE INDEX watch_spells_open ON watch_spells(resource, kind) WHERE closed_at IS NULL;
CREATE INDEX watch_spells_opened ON watch_spells(opened_at);

CREATE TABLE watch_events (
	id        INTEGER PRIMARY KEY,
	spell_id  INTEGER NOT NULL REFERENCES watch_spells(id),
	at        INTEGER NOT NULL,
	kind      TEXT NOT NULL,               -- open, remind, close, grace, act
	event     TEXT NOT NULL,               -- idle, reminder, busy, released, grace, action, lifetime
	resource  TEXT NOT NULL,
	team      TEXT NOT NULL DEFAULT '',
	title     TEXT NOT NULL,
	body      TEXT NOT NULL,
	burnt     REAL                         -- so far, at the spell's rate; NULL when unknown
);
CREATE INDEX watch_events_at ON watch_events(at);

CREATE TABLE watch_messages (
	id        INTEGER PRIMARY KEY,
	event_id  INTEGER NOT NULL REFERENCES watch_events(id),
	channel   TEXT NOT NULL,               -- watch.channels[i] as "type#i"
	sent_at   INTEGER,
	attempts  INTEGER NOT NULL DEFAULT 0,
	error     TEXT
);
CREATE INDEX watch_messages_pending ON watch_messages(event_id) WHERE sent_at IS NULL;

CREATE TABLE watch_actions (
	id          INTEGER PRIMARY KEY,
	event_id    INTEGER NOT NULL REFERENCES watch_events(id),
	resource    TEXT NOT NULL,
	team        TEXT NOT NULL DEFAULT '',
	decided_at  INTEGER NOT NULL,
	action      TEXT NOT NULL,             -- stop, release
	argv        TEXT NOT NULL,             -- JSON array
	outcome     TEXT NOT NULL,             -- pending, done, failed, timeout, interrupted, busy, dry-run, refused
	reason      TEXT,
	exit_code   INTEGER,
	output      TEXT,                      -- the tail of stdout and stderr, capped
	finished_at INTEGER,
	idle_since  INTEGER NOT NULL,
	rate        REAL,
	currency    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX watch_actions_decided ON watch_actions(decided_at);

-- Where each telemetry source was read up to, so a pass reads only what is new.
CREATE TABLE watch_cursors (
	source TEXT PRIMARY KEY,
	until  INTEGER NOT NULL
);
`,
	// 8: the weekly report's watch section reads the messages delivered in
	// its window by when they were sent (a message held through quiet hours
	// goes out long after its decision), so that read walks an index.
	`
CREATE INDEX watch_messages_sent ON watch_messages(sent_at) WHERE sent_at IS NOT NULL;
`,
	// 9: the watch reads log files by their tail (ingest/tail, watch/pass):
	// a log's cursor also says which file it was read from (a fingerprint of
	// its first bytes, so a rotated, truncated or replaced file is read from
	// the start), the byte after the last complete line read, and the header
	// or field list a tail without a header is parsed with.
	`
ALTER TABLE watch_cursors ADD COLUMN identity TEXT NOT NULL DEFAULT '';
ALTER TABLE watch_cursors ADD COLUMN offset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE watch_cursors ADD COLUMN header TEXT NOT NULL DEFAULT '';
`,
	// 10: billing_lines.source_id without its foreign key. With the key, every
	// multi-row INSERT of an import kept a statement journal (SQLite must be
	// able to undo a statement that fails the check halfway), a tenth of the
	// inserter's time. The store deletes a replaced source's lines itself
	// (deleteSource), which is all ON DELETE CASCADE did for this table.
	// A foreign key is not part of the file format, so the table's CREATE
	// statement is edited in place (sqlite.org/lang_altertable.html, "making
	// other kinds of table schema changes": removing a FOREIGN KEY
	// constraint) instead of copying the table: instant on a year of a
	// fleet's lines (tens of GB), where a copy would take minutes and need as
	// much free disk again. afterMigration bumps schema_version, as that
	// procedure requires, and checks that the key is gone.
	`
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql,
	'source_id         INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,',
	'source_id         INTEGER NOT NULL,  -- source_files.id; its lines are deleted with it by deleteSource (migration 10)')
WHERE type = 'table' AND name = 'billing_lines';
PRAGMA writable_schema = OFF;
`,
	// 11: a bill is counted once (store/scope.go). Each billing file's lines
	// are summarised per scope — provider, billing account and the UTC month
	// of the charge — with the range they cover and an order-free hash of
	// their content, so that a file whose charges another file already
	// holds (a month-to-date snapshot downloaded again, the same export as
	// CSV and Parquet) is found without reading either file's lines.
	// scoped marks the sources summarised; those imported before this
	// migration are summarised the first time a file of their period comes.
	// failed_imports remembers deliveries and files that did not import, for
	// the data-quality box of later reports, until the same file or another
	// delivery of the period imports.
	`
ALTER TABLE source_files ADD COLUMN scoped INTEGER NOT NULL DEFAULT 0;

CREATE TABLE source_scopes (
	source_id   INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
	scope       TEXT NOT NULL,     -- provider U+001F billing account U+001F YYYY-MM
	first_start INTEGER NOT NULL,  -- unix seconds: the earliest charge start
	last_start  INTEGER NOT NULL,  -- the latest charge start: how far a snapshot reaches
	last_end    INTEGER NOT NULL,  -- the latest charge end
	lines       INTEGER NOT NULL,
	content     INTEGER NOT NULL,  -- sum of the lines' content hashes (mod 2^64)
	PRIMARY KEY (source_id, scope)
);
CREATE INDEX source_scopes_scope ON source_scopes(scope);

CREATE TABLE failed_imports (
	uri        TEXT NOT NULL,
	period_key TEXT NOT NULL DEFAULT '',
	delivery   TEXT NOT NULL DEFAULT '',
	error      TEXT NOT NULL,
	failed_at  INTEGER NOT NULL,
	PRIMARY KEY (uri, period_key, delivery)
);
`,
	// 12: decisions about advice (finops advice, store/advice.go). One row
	// per decision, never updated, so the history stays: the latest row of
	// an id is its current decision. resource_id and action are the
	// advice's (its id is a hash of them); baseline and expected are its
	// current monthly cost and saving when decided, for the realised saving
	// when the lines before the decision are gone. why is what someone
	// typed: untrusted text.
	`
CREATE TABLE advice_decisions (
	seq         INTEGER PRIMARY KEY,
	id          TEXT NOT NULL,              -- adv- and 8 hex digits
	decision    TEXT NOT NULL CHECK (decision IN ('done', 'dismissed', 'snoozed')),
	until       INTEGER,                    -- unix seconds; snoozed only
	why         TEXT NOT NULL DEFAULT '',
	decided_at  INTEGER NOT NULL,           -- unix seconds
	resource_id TEXT NOT NULL,
	action      TEXT NOT NULL,
	baseline    REAL,                       -- monthly, in currency; NULL when unknown
	expected    REAL,
	currency    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX advice_decisions_id ON advice_decisions(id, decided_at);
`,
	// 13: the weekly digest in chat (deliver/digest.go, issue #27): one row
	// per period, scope (a team's name; '' for the fleet digest to the admins'
	// channels) and watch channel, so a run sends each digest once and
	// retries the ones that failed. The watch's own ledger does not fit: its
	// messages belong to an event of an idle spell (event_id and spell_id are
	// NOT NULL), a watch pass sends every pending one, and the report's watch
	// section counts them as alerts. runs.chat_status is the run's chat stage.
	`
ALTER TABLE runs ADD COLUMN chat_status TEXT;

CREATE TABLE run_digests (
	period     TEXT NOT NULL,               -- report label, e.g. 2026-W48
	scope      TEXT NOT NULL,               -- a team's name; '' for the fleet digest
	channel    TEXT NOT NULL,               -- watch.channels[i] as "type#i", as in watch_messages
	generation INTEGER NOT NULL DEFAULT 1,  -- 1, then +1 per --resend
	title      TEXT NOT NULL,
	body       TEXT NOT NULL,               -- plain text: each channel's sender escapes it for its platform
	currency   TEXT NOT NULL DEFAULT '',
	status     TEXT NOT NULL,               -- pending, sent, failed, abandoned
	attempts   INTEGER NOT NULL DEFAULT 0,
	built_at   INTEGER NOT NULL,            -- unix seconds
	sent_at    INTEGER,
	run_id     INTEGER,                     -- the last run that queued or tried it
	error      TEXT,
	PRIMARY KEY (period, scope, channel)
);
CREATE INDEX run_digests_pending ON run_digests(status) WHERE status IN ('pending', 'failed');
`,
	// 14: per-minute power in compacted days (store/days.go, issue #27). A
	// day kept only its power sum, so a report spread the day's mean over
	// every minute and a task at the day's busy hours got too little energy.
	// 1,440 uint16 little-endian whole watts (0xFFFF: no reading), written
	// only for a day with a power reading: NULL costs a fleet without power
	// nothing. Days compacted before keep NULL and are read as before, with
	// the day's mean (store/series.go, dayPower).
	`
ALTER TABLE gpu_days ADD COLUMN power BLOB;
`,
	// 15: what a delivery that replaced an earlier one of its billing period
	// changed (store/periodchange.go, issue #32): the two runs' totals, the
	// drop, and the charges only the old run held, so that every report of
	// the period names a run that lost money or charges, and one beyond
	// thresholds.max_restatement_drop is incomplete. The row belongs to the
	// new run's first file: when a later run replaces it, its note goes too.
	`
CREATE TABLE period_changes (
	source_id     INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
	period_key    TEXT NOT NULL,
	old_delivery  TEXT NOT NULL,
	new_delivery  TEXT NOT NULL,
	old_total     TEXT NOT NULL,    -- "14.98 USD", per currency
	new_total     TEXT NOT NULL,
	drop_share    REAL NOT NULL,    -- (old - new) / old, the largest of the currencies; negative: grew
	only_old      INTEGER NOT NULL, -- charges of the old run the new one lacks
	only_old_cost TEXT NOT NULL,
	changed_at    INTEGER NOT NULL  -- unix seconds
);
CREATE INDEX period_changes_source ON period_changes(source_id);
`,
	// 16: the database's identity (store/meta.go): a random id, drawn once,
	// that the JSON summary carries so that `finops rollup` can tell two
	// summaries of one database apart from two shards (docs/ROLLUP.md).
	`
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('database_id', lower(hex(randomblob(16))));
`,
	// 17: a GPU that is a slice of a card (issue #34): a vGPU profile or MIG
	// instance, recorded under its parent model with its profile and
	// fractions (finops.GPUSlice) so that nothing per model counts it as a
	// whole card. NULL slice_kind: a whole card. GPUs recorded before keep
	// NULL: their driver name is not stored, so a vGPU read then as its
	// parent card stays one until its telemetry is imported again.
	`
ALTER TABLE gpus ADD COLUMN slice_kind TEXT;      -- vGPU, MIG
ALTER TABLE gpus ADD COLUMN slice_profile TEXT;   -- A100-10C, 1g.10gb
ALTER TABLE gpus ADD COLUMN slice_memory REAL;    -- profile memory / card memory; NULL unknown
ALTER TABLE gpus ADD COLUMN slice_compute REAL;   -- MIG g/7; NULL not dedicated (time-sliced vGPU)
`,
	// 18: what an incremental pull saw of a remote source (store/seen.go,
	// source/seen.go, issue #35): one row per object URL with the listing's
	// identity of it (size, ETag, MD5, modification time) and what became of
	// it — imported (its bytes stored, or found to change nothing), failed,
	// or left out by the delivery planning — so that a second pull of an
	// unchanged prefix downloads nothing. Only a successful import writes
	// 'stored' or 'unchanged'; a failed one leaves the object to be
	// downloaded again.
	`
CREATE TABLE remote_objects (
	url           TEXT PRIMARY KEY,  -- s3://bucket/key, az://account/container/key, gs://bucket/key
	size          INTEGER NOT NULL,
	etag          TEXT NOT NULL DEFAULT '',
	md5           TEXT NOT NULL DEFAULT '',  -- hex
	last_modified INTEGER NOT NULL DEFAULT 0, -- unix nanoseconds; 0 unknown
	sha256        TEXT NOT NULL DEFAULT '',  -- of the downloaded bytes; '' when never downloaded
	outcome       TEXT NOT NULL CHECK (outcome IN ('stored', 'unchanged', 'failed', 'left-out')),
	seen_at       INTEGER NOT NULL           -- unix seconds
) WITHOUT ROWID;
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
		if err := applyMigration(ctx, tx, version); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: %w", err)
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

// applyMigration brings a database of schema version to version+1 in tx:
// migrate's step, and CheckSnapshot's reference schema's.
func applyMigration(ctx context.Context, tx *sql.Tx, version int) error {
	if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
		return fmt.Errorf("migration %d: %w", version+1, err)
	}
	if err := afterMigration(ctx, tx, version+1); err != nil {
		return fmt.Errorf("migration %d: %w", version+1, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version+1)); err != nil {
		return fmt.Errorf("migration %d: %w", version+1, err)
	}
	return nil
}

// afterMigration does what the SQL of the migration to version cannot say
// itself.
func afterMigration(ctx context.Context, tx *sql.Tx, version int) error {
	if version != 10 {
		return nil
	}
	// sqlite_schema was written directly: a new schema_version makes every
	// connection (this one included) read the schema again.
	var v int64
	if err := tx.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&v); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA schema_version = %d", v+1)); err != nil {
		return err
	}
	var fks int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_foreign_key_list('billing_lines')`).Scan(&fks); err != nil {
		return err
	}
	if fks != 0 {
		return errors.New("billing_lines still has its foreign key: its CREATE statement is not the one finops wrote; report this database's `.schema billing_lines`")
	}
	return nil
}

// SchemaVersion is the number of migrations this build knows.
func SchemaVersion() int { return len(migrations) }
