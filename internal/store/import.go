package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// FileMeta identifies one file to import.
type FileMeta struct {
	URI    string // path or URI as the user named it
	SHA256 string // hex digest of the file's bytes as stored (compressed or not)
	// Hash, when SHA256 is empty, takes that digest: the store runs it
	// beside the parse (hashbeside.go) and waits for it before the import
	// returns. It must return soon after its context is done.
	Hash func(ctx context.Context) (string, error)
	Host string // GPU host for telemetry files, when known
	// Period and Delivery say which delivery of which billing period the file
	// belongs to, from an export manifest (Period "aws-cur:<payer>:<YYYY-MM>",
	// Delivery the assembly id). Clouds restate a period by delivering it
	// again in full, so importing a file of a period removes, in the same
	// transaction, every earlier source of that period with another delivery:
	// a restatement replaces, it never adds. Empty: the parser's
	// Summary.Period and Summary.Delivery, when it derives them from the data
	// (Azure actual vs amortized exports), else no restatement key.
	Period   string
	Delivery string
	// CompactBefore: telemetry of the UTC days that ended before it goes
	// straight into compacted GPU-days, as CompactTelemetry with the same
	// time would fold it after the import (an ingest passes the cut it
	// compacts at, utilization.hot_days ago). Zero: every minute is written
	// as a minute row.
	CompactBefore time.Time
	// Replace imports the file again on purpose (ingest --replace): its
	// earlier import goes, a delivery that replaced it is ignored, and
	// where its charges overlap another file's, its own win.
	Replace bool
}

// ImportResult says what an import did.
type ImportResult struct {
	SourceID    int64
	Duplicate   bool   // the same bytes were imported before: nothing changed
	DuplicateOf string // the URI of that earlier import
	Summary     *ingest.Summary
	// Period and Delivery are the restatement key the file was stored under.
	Period   string
	Delivery string
	// Replaced lists the earlier deliveries of the period this import removed.
	Replaced []ReplacedSource
	// Superseded: the file belongs to a delivery that a later one replaced;
	// nothing changed (Duplicate is set too, DuplicateOf names the file as
	// first imported and Delivery the delivery that replaced it). Also a
	// snapshot older than one imported before (Overlaps says which).
	Superseded bool
	// Overlaps says what happened where the file's charges met another
	// file's (scope.go): whose lines were kept.
	Overlaps []OverlapNote
	// PeriodChange, on the result of the file whose delivery replaced an
	// earlier one of its period, is what the new run changed
	// (periodchange.go): both totals, the drop, the charges only in the
	// old run.
	PeriodChange *PeriodChange

	oldRun *chargeTally // the charges of the deliveries this file replaced
}

// ReplacedSource is an earlier import that a newer delivery of its billing
// period replaced.
type ReplacedSource struct {
	URI      string
	Delivery string
	Rows     int
}

// ParseFunc parses one file into sink. The store calls it inside the file's
// transaction, so an error leaves the database exactly as it was.
type ParseFunc func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error)

// FileImport is one file of ImportGroup.
type FileImport struct {
	Meta  FileMeta
	Parse ParseFunc
}

// Import stores one file in one immediate write transaction. Re-importing the
// same bytes (same sha256) is a no-op reported as Duplicate. A file with a
// restatement key (FileMeta.Period, else the parser's Summary.Period)
// replaces the earlier sources of its period that belong to another delivery;
// a replaced delivery stays replaced (importing it again is a no-op reported
// as Superseded), so a folder holding several deliveries settles on one,
// and what the new delivery changed is measured (periodchange.go).
// Billing lines another file already holds are counted once, and no file
// removes a charge that no retained file holds unless meta.Replace
// (scope.go).
func (s *Store) Import(ctx context.Context, meta FileMeta, parse ParseFunc) (*ImportResult, error) {
	res, err := s.ImportGroup(ctx, []FileImport{{meta, parse}})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// ImportGroup imports files in one transaction: all of them or none. A
// delivery of a billing period is imported so, so that a delivery with one
// bad file never replaces the good one before it (the error names the file
// that failed; RecordFailedImport remembers it for the reports).
func (s *Store) ImportGroup(ctx context.Context, files []FileImport) ([]*ImportResult, error) {
	if len(files) == 0 {
		return nil, nil
	}
	// The import holds its connection: the billing inserter writes through
	// the driver's connection underneath the transaction (billing_insert.go).
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: begin import of %s: %w", files[0].Meta.URI, err)
	}
	defer conn.Close() // after the Rollback below
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: begin import of %s: %w", files[0].Meta.URI, err)
	}
	defer tx.Rollback() // no-op after Commit
	// Until the commit's checkpoint is done (writeback.go).
	defer startWriteback(s.path)()
	out := make([]*ImportResult, 0, len(files))
	for _, f := range files {
		res, err := s.importSaved(ctx, conn, tx, f.Meta, f.Parse)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	if err := measurePeriodChanges(ctx, tx, out, s.now); err != nil {
		return nil, fmt.Errorf("store: import %s: compare with the period's earlier delivery: %w", files[0].Meta.URI, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: commit import of %s: %w", files[len(files)-1].Meta.URI, err)
	}
	return out, nil
}

// importSaved imports one file of the transaction under a savepoint, so
// that a file found to change nothing after it was parsed (its lines all
// held by other files) leaves no trace, whatever the group does next.
func (s *Store) importSaved(ctx context.Context, conn *sql.Conn, tx *sql.Tx, meta FileMeta, parse ParseFunc) (*ImportResult, error) {
	if meta.SHA256 == "" && meta.Hash == nil {
		return nil, errors.New("store: import: missing sha256 (and no Hash to take it)")
	}
	if _, err := tx.ExecContext(ctx, `SAVEPOINT import_file`); err != nil {
		return nil, fmt.Errorf("store: import %s: %w", meta.URI, err)
	}
	res, keep, err := s.importFile(ctx, conn, tx, meta, parse)
	if err != nil {
		return nil, err // the group's transaction is rolled back whole
	}
	if !keep {
		if _, err := tx.ExecContext(ctx, `ROLLBACK TO import_file`); err != nil {
			return nil, fmt.Errorf("store: import %s: %w", meta.URI, err)
		}
		res.oldRun = nil // what it replaced is back
	}
	if _, err := tx.ExecContext(ctx, `RELEASE import_file`); err != nil {
		return nil, fmt.Errorf("store: import %s: %w", meta.URI, err)
	}
	return res, nil
}

// importFile is one file's import; keep is false when what it wrote is to
// be undone (the file changes nothing). Its steps: a file that an earlier
// import or delivery settles before it is read (settledBefore), the same
// bytes imported before (sameBytes), the parse into a new source
// (parseSource), its billing period's earlier deliveries (replaceEarlier),
// its charges that other files hold (settleOverlaps), and what it clears
// (clearFailed).
//
// Without meta.SHA256, the digest is taken beside the parse (meta.Hash,
// hashbeside.go), and the checks that read it run when the parse ends (or
// stops because they would settle the file): when they settle it, what the
// parse wrote is rolled back to importSaved's savepoint and the file is
// imported again with its digest known, which settles it without a parse.
// A digest that fails fails the import, as it did when taken first.
func (s *Store) importFile(ctx context.Context, conn *sql.Conn, tx *sql.Tx, meta FileMeta, parse ParseFunc) (*ImportResult, bool, error) {
	now := s.now().Unix()
	var beside *pendingSum
	if meta.SHA256 == "" {
		beside = startSum(ctx, meta.Hash)
		defer beside.stop()
		if meta.Replace {
			// --replace deletes the earlier import of the same bytes
			// before the parse: it needs the digest first.
			sum, err := beside.wait()
			if err != nil {
				return nil, false, err
			}
			meta.SHA256, beside = sum, nil
		}
	}
	if res, err := settledBefore(ctx, tx, meta); res != nil || err != nil {
		return res, false, wrapImport(meta, err)
	}
	if beside == nil {
		if res, keep, err := sameBytes(ctx, tx, meta, now); res != nil || err != nil {
			return res, keep, wrapImport(meta, err)
		}
	}
	id, sum, stats, parsed, err := parseSource(ctx, conn, tx, meta, parse, now, beside)
	if beside != nil && parsed {
		digest, herr := beside.wait()
		if herr != nil {
			return nil, false, herr
		}
		meta.SHA256 = digest
		seen, serr := seenBytes(ctx, tx, meta)
		if serr != nil {
			return nil, false, wrapImport(meta, serr)
		}
		if seen {
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO import_file`); err != nil {
				return nil, false, wrapImport(meta, err)
			}
			return s.importFile(ctx, conn, tx, meta, parse)
		}
		if err == nil {
			if _, err := tx.ExecContext(ctx, `UPDATE source_files SET sha256 = ? WHERE id = ?`, digest, id); err != nil {
				return nil, false, wrapImport(meta, err)
			}
		}
	}
	if err != nil {
		return nil, false, err
	}
	result, err := replaceEarlier(ctx, tx, meta, id, sum, now)
	if err != nil || result.Duplicate {
		return result, false, wrapImport(meta, err)
	}
	// Compared with other files by charge only under its format's rule.
	if ingest.SupersedeOf(sum).ComparesCharges() {
		if dup, err := settleOverlaps(ctx, tx, meta, result, stats, now); dup != nil || err != nil {
			return dup, false, err
		}
	}
	if err := clearFailed(ctx, tx, meta, result.Period); err != nil {
		return nil, false, wrapImport(meta, err)
	}
	return result, true, nil
}

// wrapImport names the file in an error of its import (nil stays nil).
func wrapImport(meta FileMeta, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store: import %s: %w", meta.URI, err)
}

// settledBefore returns the result of a file that is not to be imported
// (Superseded), or nil. With meta.Replace the file comes in again whatever
// replaced it, and its earlier import (the same bytes) goes.
func settledBefore(ctx context.Context, tx *sql.Tx, meta FileMeta) (*ImportResult, error) {
	switch {
	case meta.Replace:
		// On purpose: the file comes in again, whatever replaced it, and
		// its earlier import (the same bytes) goes.
		var prev int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM source_files WHERE sha256 = ?`, meta.SHA256).Scan(&prev)
		switch {
		case err == nil:
			return nil, deleteSource(ctx, tx, prev)
		case !errors.Is(err, sql.ErrNoRows):
			return nil, err
		}
	case meta.Period != "":
		// A delivery that a later one replaced does not come back.
		if uri, by, err := superseded(ctx, tx, `period_key = ? AND delivery = ?`, meta.Period, meta.Delivery); err != nil {
			return nil, err
		} else if uri != "" {
			return &ImportResult{Duplicate: true, Superseded: true, DuplicateOf: uri, Period: meta.Period, Delivery: by}, nil
		}
	case meta.SHA256 == "":
		// The digest is being taken beside the parse: the check below
		// waits for it (importFile, seenBytes).
	default:
		// Nor do the bytes of a file that a later delivery, or a file that
		// holds its charges, replaced.
		var uri, period, delivery, by string
		err := tx.QueryRowContext(ctx, `SELECT uri, period_key, delivery, replaced_by FROM replaced_files WHERE sha256 = ?`,
			meta.SHA256).Scan(&uri, &period, &delivery, &by)
		switch {
		case err == nil && delivery != "":
			return &ImportResult{Duplicate: true, Superseded: true, DuplicateOf: uri, Period: period, Delivery: by}, nil
		case err == nil:
			// period is a scope (scope.go) and by the file that replaced it.
			return &ImportResult{Duplicate: true, Superseded: true, DuplicateOf: uri, Delivery: by}, nil
		case !errors.Is(err, sql.ErrNoRows):
			return nil, err
		}
	}
	return nil, nil
}

// sameBytes returns the result of a file whose bytes were imported before
// (Duplicate), or nil. When a newer delivery carries the file unchanged,
// the stored copy now belongs to it and the rest of the older delivery
// goes: keep is true.
func sameBytes(ctx context.Context, tx *sql.Tx, meta FileMeta, now int64) (res *ImportResult, keep bool, err error) {
	var prevID int64
	var prevURI, prevPeriod, prevDelivery string
	err = tx.QueryRowContext(ctx, `SELECT id, uri, coalesce(period_key, ''), coalesce(delivery, '')
		FROM source_files WHERE sha256 = ?`, meta.SHA256).Scan(&prevID, &prevURI, &prevPeriod, &prevDelivery)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	res = &ImportResult{Duplicate: true, DuplicateOf: prevURI, Period: prevPeriod, Delivery: prevDelivery}
	if meta.Period == "" || (prevPeriod != "" && prevPeriod != meta.Period) ||
		(prevPeriod == meta.Period && prevDelivery == meta.Delivery) {
		return res, false, nil
	}
	// A newer delivery carries this file unchanged: the stored copy now
	// belongs to it, and the rest of the older delivery goes.
	if res.Replaced, res.oldRun, err = replacePeriod(ctx, tx, prevID, meta.Period, meta.Delivery, now); err != nil {
		return nil, false, err
	}
	if prevPeriod == meta.Period {
		// The stored copy was part of the old run too: its charges
		// count on both sides of the change.
		if res.oldRun == nil {
			res.oldRun = newChargeTally()
		}
		if err := res.oldRun.addSource(ctx, tx, prevID); err != nil {
			return nil, false, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE source_files SET period_key = ?, delivery = ? WHERE id = ?`,
		meta.Period, meta.Delivery, prevID); err != nil {
		return nil, false, err
	}
	res.Period, res.Delivery = meta.Period, meta.Delivery
	return res, true, nil
}

// parseSource records the file as a new source and parses it into the
// source's records; it returns the source's id, the parser's summary, the
// scopes of its billing lines (scope.go), and whether the parse ran (an
// error before it is the database's). With beside, the source is recorded
// under hashingSHA256 until importFile stores the digest. A parser's error
// is returned as it is: it names the file and line already.
func parseSource(ctx context.Context, conn *sql.Conn, tx *sql.Tx, meta FileMeta, parse ParseFunc, now int64, beside *pendingSum) (id int64, sum *ingest.Summary, scopes map[scopeKey]*scopeStat, parsed bool, err error) {
	sha := meta.SHA256
	if beside != nil {
		sha = hashingSHA256
	}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO source_files (uri, sha256, format, kind, host, rows, imported_at) VALUES (?, ?, '', '', ?, 0, ?)`,
		meta.URI, sha, nullString(meta.Host), now)
	if err != nil {
		return 0, nil, nil, false, wrapImport(meta, err)
	}
	id, err = res.LastInsertId()
	if err != nil {
		return 0, nil, nil, false, wrapImport(meta, err)
	}
	w, err := newWriter(ctx, conn, tx, id, meta.CompactBefore)
	if err != nil {
		return 0, nil, nil, false, wrapImport(meta, err)
	}
	defer w.close()
	w.beside, w.meta = beside, meta
	sum, err = parse(ctx, w)
	if err != nil {
		return 0, nil, nil, true, err // the parser's error already names the file and line
	}
	if sum == nil {
		return 0, nil, nil, true, fmt.Errorf("store: import %s: the parser returned no summary", meta.URI)
	}
	if err := w.finish(ctx, sum); err != nil {
		return 0, nil, nil, true, wrapImport(meta, err)
	}
	return id, sum, w.lines.scopes.m, true, nil
}

// replaceEarlier stores the file's restatement key (meta's, else one the
// parser read from the data) and replaces the period's earlier deliveries
// (replacePeriod). These very bytes, replaced before under a key read
// from the data, stay replaced: the result is then Duplicate.
func replaceEarlier(ctx context.Context, tx *sql.Tx, meta FileMeta, id int64, sum *ingest.Summary, now int64) (*ImportResult, error) {
	result := &ImportResult{SourceID: id, Summary: sum, Period: meta.Period, Delivery: meta.Delivery}
	// How the file supersedes others is its format's rule, from the
	// registry of formats (ingest.Format.Supersede), never a list kept here:
	// a period read from the data only under SupersedeByPeriod.
	if result.Period == "" && sum.Period != "" && ingest.SupersedeOf(sum) == ingest.SupersedeByPeriod {
		// A key the parser read from the data: these very bytes, replaced
		// before under the same key, stay replaced.
		if uri, by, err := superseded(ctx, tx, `sha256 = ? AND period_key = ? AND delivery = ?`,
			meta.SHA256, sum.Period, sum.Delivery); err != nil {
			return nil, err
		} else if uri != "" && !meta.Replace {
			return &ImportResult{Duplicate: true, Superseded: true, DuplicateOf: uri, Period: sum.Period, Delivery: by}, nil
		}
		result.Period, result.Delivery = sum.Period, sum.Delivery
	}
	if result.Period == "" {
		return result, nil
	}
	var err error
	if result.Replaced, result.oldRun, err = replacePeriod(ctx, tx, id, result.Period, result.Delivery, now); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE source_files SET period_key = ?, delivery = ? WHERE id = ?`,
		result.Period, result.Delivery, id); err != nil {
		return nil, err
	}
	return result, nil
}

// settleOverlaps compares the file's billing lines with the files that
// cover its scopes (resolveOverlaps) and notes what it did on result. It
// returns the result of a file whose every charge other files hold
// (Duplicate: it changes nothing), or nil. An OverlapError refuses the
// file.
func settleOverlaps(ctx context.Context, tx *sql.Tx, meta FileMeta, result *ImportResult, stats map[scopeKey]*scopeStat, now int64) (*ImportResult, error) {
	sum := result.Summary
	notes, err := resolveOverlaps(ctx, tx, overlapInput{id: result.SourceID, uri: meta.URI, format: sum.Format,
		period: result.Period, delivery: result.Delivery, declared: meta.Period != "",
		replace: meta.Replace, stats: stats, now: now})
	var oe *OverlapError
	if errors.As(err, &oe) {
		return nil, fmt.Errorf("store: import %w", err)
	}
	if err != nil {
		return nil, wrapImport(meta, err)
	}
	result.Overlaps = notes
	if len(notes) == 0 || sum.Rows == 0 {
		return nil, nil
	}
	var left int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM billing_lines WHERE source_id = ?`, result.SourceID).Scan(&left); err != nil {
		return nil, wrapImport(meta, err)
	}
	if left > 0 {
		return nil, nil
	}
	// Every charge of the file is held by others: it changes nothing, as
	// the same bytes imported again would not.
	other := notes[len(notes)-1]
	return &ImportResult{Duplicate: true, Superseded: other.Action == OverlapKept, DuplicateOf: other.Other,
		Summary: sum, Overlaps: notes}, nil
}

// clearFailed forgets that the file's bytes were replaced and that it, or
// a file of its billing period, failed to import before.
func clearFailed(ctx context.Context, tx *sql.Tx, meta FileMeta, period string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM replaced_files WHERE sha256 = ?`, meta.SHA256); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM failed_imports WHERE uri = ? OR (period_key <> '' AND period_key = ?)`,
		meta.URI, period)
	return err
}

// superseded looks for a replaced file matching where; it returns the file's
// URI and the delivery that replaced it, or "" when there is none.
func superseded(ctx context.Context, tx *sql.Tx, where string, args ...any) (uri, by string, err error) {
	err = tx.QueryRowContext(ctx, `SELECT uri, replaced_by FROM replaced_files WHERE `+where+` ORDER BY replaced_at DESC LIMIT 1`,
		args...).Scan(&uri, &by)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	return uri, by, err
}

// replacePeriod deletes the sources of period that belong to a delivery other
// than delivery, with their records (deleteSource), except keep, and
// remembers them in replaced_files. It returns them, and their charges for
// measurePeriodChanges (nil when it replaced none).
func replacePeriod(ctx context.Context, tx *sql.Tx, keep int64, period, delivery string, now int64) ([]ReplacedSource, *chargeTally, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, uri, sha256, coalesce(delivery, ''), rows FROM source_files
		WHERE period_key = ? AND coalesce(delivery, '') <> ? AND id <> ? ORDER BY id`, period, delivery, keep)
	if err != nil {
		return nil, nil, err
	}
	var out []ReplacedSource
	var ids []int64
	var shas []string
	for rows.Next() {
		var r ReplacedSource
		var id int64
		var sha string
		if err := rows.Scan(&id, &r.URI, &sha, &r.Delivery, &r.Rows); err != nil {
			rows.Close()
			return nil, nil, err
		}
		out, ids, shas = append(out, r), append(ids, id), append(shas, sha)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	old := newChargeTally()
	for i, id := range ids {
		if err := old.addSource(ctx, tx, id); err != nil {
			return nil, nil, err
		}
		if err := deleteSource(ctx, tx, id); err != nil {
			return nil, nil, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO replaced_files (sha256, uri, period_key, delivery, replaced_by, replaced_at)
			VALUES (?, ?, ?, ?, ?, ?)`, shas[i], out[i].URI, period, out[i].Delivery, delivery, now); err != nil {
			return nil, nil, err
		}
	}
	return out, old, nil
}

// deleteSource deletes a source file and every record it brought. Billing
// lines are deleted here, as their source_id has no foreign key (migration
// 10); the rows of the other tables go by ON DELETE CASCADE.
func deleteSource(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM billing_lines WHERE source_id = ?`, id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM source_files WHERE id = ?`, id)
	return err
}

// writer is the ingest.Sink that writes records into the open transaction
// through prepared statements.
type writer struct {
	ctx      context.Context
	tx       *sql.Tx
	sourceID int64

	gpu, task, run *sql.Stmt
	minutes        *minuteWriter    // telemetry rollups (samples.go)
	lines          billingBatch     // billing lines not yet sent to the inserter
	inserter       billingInserter  // inserts full chunks, beside the parser
	gpuIDs         map[string]int64 // bounded by the number of GPUs, not by rows
	taskIDs        map[string]int64

	// beside is the file's digest being taken beside the parse, until
	// checkSeen has looked at it; meta the file's.
	beside  *pendingSum
	meta    FileMeta
	records int // handed over, for checkSeen
}

func newWriter(ctx context.Context, conn *sql.Conn, tx *sql.Tx, sourceID int64, compactBefore time.Time) (*writer, error) {
	w := &writer{ctx: ctx, tx: tx, sourceID: sourceID, gpuIDs: map[string]int64{}, taskIDs: map[string]int64{}}
	p := preparer{ctx: ctx, tx: tx}
	prep := p.prep
	w.lines = billingBatch{source: sourceID}
	w.inserter = billingInserter{ctx: ctx, conn: conn, source: sourceID}
	// A GPU's slice goes with its model: the file that names the model says
	// whether it is a whole card or which slice (finops.GPUSlice).
	w.gpu = prep(`INSERT INTO gpus (gpu_key, uuid, host, idx, model, memory_total_mib,
			slice_kind, slice_profile, slice_memory, slice_compute) VALUES (?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (gpu_key) DO UPDATE SET
			uuid = coalesce(excluded.uuid, uuid), host = coalesce(excluded.host, host),
			idx = coalesce(excluded.idx, idx), model = coalesce(excluded.model, model),
			memory_total_mib = coalesce(excluded.memory_total_mib, memory_total_mib),
			slice_kind = iif(excluded.model IS NULL, slice_kind, excluded.slice_kind),
			slice_profile = iif(excluded.model IS NULL, slice_profile, excluded.slice_profile),
			slice_memory = iif(excluded.model IS NULL, slice_memory, excluded.slice_memory),
			slice_compute = iif(excluded.model IS NULL, slice_compute, excluded.slice_compute)
		RETURNING id`)
	w.task = prep(`INSERT INTO tasks (name, team, kind, unit) VALUES (?,?,?,?)
		ON CONFLICT (name) DO UPDATE SET team = excluded.team, kind = excluded.kind, unit = excluded.unit
		RETURNING id`)
	// A run declared again (a newer tasks file) replaces the earlier one.
	w.run = prep(`INSERT OR REPLACE INTO task_runs (task_id, source_id, line, resource, gpus, start, end, units) VALUES (?,?,?,?,?,?,?,?)`)
	err := p.err
	if err == nil {
		// A sample already stored for the same GPU and instant (overlapping
		// logs) is kept: the first import wins, nothing is counted twice.
		w.minutes, err = newMinuteWriter(ctx, tx, sourceID, compactBefore)
	}
	if err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *writer) close() {
	_ = w.inserter.stop() // before the statement closes and the transaction ends
	for _, st := range []*sql.Stmt{w.gpu, w.task, w.run} {
		if st != nil {
			st.Close()
		}
	}
	if w.minutes != nil {
		w.minutes.close()
	}
}

// Billing implements ingest.Sink. Lines are inserted billingChunkRows at a
// time by the inserter goroutine; finish inserts the rest.
func (w *writer) Billing(l *finops.BillingLine) error {
	if err := w.ctx.Err(); err != nil {
		return err // a batched line reaches the database later: check here
	}
	if err := w.inserter.error(); err != nil {
		return err
	}
	if w.lines.add(l) {
		w.lines.cur = w.inserter.send(w.lines.cur)
	}
	return w.checkSeen()
}

// Sample implements ingest.Sink.
func (w *writer) Sample(s *finops.GPUSample) error {
	key := s.GPUKey()
	id, ok := w.gpuIDs[key]
	if !ok {
		var idx any
		if s.Index >= 0 {
			idx = s.Index
		}
		var kind, profile, mem, compute any
		if sl := s.Slice; sl != nil {
			kind, profile = sl.Kind, sl.Profile
			if sl.MemoryFraction > 0 {
				mem = sl.MemoryFraction
			}
			if sl.ComputeFraction > 0 {
				compute = sl.ComputeFraction
			}
		}
		if err := w.gpu.QueryRowContext(w.ctx, key, nullString(s.UUID), nullString(s.Host), idx,
			nullString(s.Model), floatOrNil(s.MemTotal), kind, profile, mem, compute).Scan(&id); err != nil {
			return err
		}
		w.gpuIDs[key] = id
	}
	if err := w.minutes.add(id, s); err != nil {
		return err
	}
	return w.checkSeen()
}

// TaskRun implements ingest.Sink.
func (w *writer) TaskRun(r *finops.TaskRun) error {
	id, ok := w.taskIDs[r.Task]
	if !ok {
		if err := w.task.QueryRowContext(w.ctx, r.Task, nullString(r.Team), nullString(r.Kind),
			nullString(r.Unit)).Scan(&id); err != nil {
			return err
		}
		w.taskIDs[r.Task] = id
	}
	var gpus any
	if len(r.GPUs) > 0 {
		b, err := json.Marshal(r.GPUs)
		if err != nil {
			return err
		}
		gpus = string(b)
	}
	if _, err := w.run.ExecContext(w.ctx, id, w.sourceID, r.Line, r.Resource, gpus, r.Start.Unix(), r.End.Unix(), decText(r.Units)); err != nil {
		return err
	}
	return w.checkSeen()
}

func (w *writer) finish(ctx context.Context, sum *ingest.Summary) error {
	if err := w.minutes.finish(); err != nil {
		return err
	}
	if err := w.flushBilling(); err != nil {
		return err
	}
	var start, end any
	if !sum.PeriodStart.IsZero() {
		start, end = sum.PeriodStart.Unix(), sum.PeriodEnd.Unix()
	}
	var total any
	if sum.Kind == ingest.KindBilling {
		total = sum.TotalCost.String()
	}
	var interval any
	if sum.SampleInterval > 0 {
		interval = sum.SampleInterval.Milliseconds()
	}
	_, err := w.tx.ExecContext(ctx, `UPDATE source_files SET format = ?, kind = ?, period_start = ?, period_end = ?,
		rows = ?, rows_rejected = ?, currency = ?, total_cost = ?, gpu_lines = ?, sample_interval_ms = ?,
		samples_dropped = ?, warnings = ? WHERE id = ?`,
		sum.Format, sum.Kind, start, end, sum.Rows, len(sum.Rejected), nullString(strings.Join(sum.Currencies, ",")),
		total, sum.GPULines, interval, sum.SamplesDropped, sum.WarningCount, w.sourceID)
	if err != nil {
		return err
	}
	for _, t := range []struct {
		table string
		errs  []*ingest.ParseError
	}{{"rejected_rows", sum.Rejected}, {"source_warnings", sum.Warnings}} {
		for _, r := range t.errs {
			if _, err := w.tx.ExecContext(ctx, `INSERT INTO `+t.table+` (source_id, line, field, message) VALUES (?,?,?,?)`,
				w.sourceID, r.Line, nullString(r.Field), r.Msg); err != nil {
				return err
			}
		}
	}
	return nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func decText(d *decimal.Decimal) any {
	if d == nil {
		return nil
	}
	return decString(*d)
}

func floatOrNil(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
