package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/finops-oss/finops/ingest"
	"github.com/shopspring/decimal"
)

// FileMeta identifies one file to import.
type FileMeta struct {
	URI    string // path or URI as the user named it
	SHA256 string // hex digest of the file's bytes as stored (compressed or not)
	Host   string // GPU host for telemetry files, when known
}

// ImportResult says what an import did.
type ImportResult struct {
	SourceID    int64
	Duplicate   bool   // the same bytes were imported before: nothing changed
	DuplicateOf string // the URI of that earlier import
	Summary     *ingest.Summary
}

// ParseFunc parses one file into sink. The store calls it inside the file's
// transaction, so an error leaves the database exactly as it was.
type ParseFunc func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error)

// FileSHA256 hashes a file in a stream.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Import stores one file in one immediate write transaction. Re-importing the
// same bytes (same sha256) is a no-op reported as Duplicate.
func (s *Store) Import(ctx context.Context, meta FileMeta, parse ParseFunc) (*ImportResult, error) {
	if meta.SHA256 == "" {
		return nil, errors.New("store: import: missing sha256")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: begin import of %s: %w", meta.URI, err)
	}
	defer tx.Rollback() // no-op after Commit

	var prevURI string
	err = tx.QueryRowContext(ctx, `SELECT uri FROM source_files WHERE sha256 = ?`, meta.SHA256).Scan(&prevURI)
	switch {
	case err == nil:
		return &ImportResult{Duplicate: true, DuplicateOf: prevURI}, nil
	case !errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("store: import %s: %w", meta.URI, err)
	}

	res, err := tx.ExecContext(ctx,
		`INSERT INTO source_files (uri, sha256, format, kind, host, rows, imported_at) VALUES (?, ?, '', '', ?, 0, ?)`,
		meta.URI, meta.SHA256, nullString(meta.Host), s.now().Unix())
	if err != nil {
		return nil, fmt.Errorf("store: import %s: %w", meta.URI, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return nil, fmt.Errorf("store: import %s: %w", meta.URI, err)
	}

	w, err := newWriter(ctx, tx, id)
	if err != nil {
		return nil, fmt.Errorf("store: import %s: %w", meta.URI, err)
	}
	defer w.close()

	sum, err := parse(ctx, w)
	if err != nil {
		return nil, err // the parser's error already names the file and line
	}
	if sum == nil {
		return nil, fmt.Errorf("store: import %s: the parser returned no summary", meta.URI)
	}
	if err := w.finish(ctx, sum); err != nil {
		return nil, fmt.Errorf("store: import %s: %w", meta.URI, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: commit import of %s: %w", meta.URI, err)
	}
	return &ImportResult{SourceID: id, Summary: sum}, nil
}

// writer is the ingest.Sink that writes records into the open transaction
// through prepared statements.
type writer struct {
	ctx      context.Context
	tx       *sql.Tx
	sourceID int64

	line, gpu, sample, task, run *sql.Stmt
	lines                        billingBatch // billing lines not yet inserted; line inserts billingBatchRows at once
	gpuIDs                       map[string]int64 // bounded by the number of GPUs, not by rows
	taskIDs                      map[string]int64
}

func newWriter(ctx context.Context, tx *sql.Tx, sourceID int64) (*writer, error) {
	w := &writer{ctx: ctx, tx: tx, sourceID: sourceID, gpuIDs: map[string]int64{}, taskIDs: map[string]int64{}}
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, q)
		return st
	}
	w.line = prep(billingInsert(billingBatchRows))
	w.lines = billingBatch{source: sourceID, args: make([]any, 0, billingBatchRows*billingArity)}
	w.gpu = prep(`INSERT INTO gpus (gpu_key, uuid, host, idx, model, memory_total_mib) VALUES (?,?,?,?,?,?)
		ON CONFLICT (gpu_key) DO UPDATE SET
			uuid = coalesce(excluded.uuid, uuid), host = coalesce(excluded.host, host),
			idx = coalesce(excluded.idx, idx), model = coalesce(excluded.model, model),
			memory_total_mib = coalesce(excluded.memory_total_mib, memory_total_mib)
		RETURNING id`)
	// A sample already stored for the same GPU and instant (overlapping log
	// files) is kept: the first import wins, nothing is counted twice.
	w.sample = prep(`INSERT OR IGNORE INTO gpu_samples (gpu_id, ts, source_id, util, mem_used_mib, power_w) VALUES (?,?,?,?,?,?)`)
	w.task = prep(`INSERT INTO tasks (name, team, kind, unit) VALUES (?,?,?,?)
		ON CONFLICT (name) DO UPDATE SET team = excluded.team, kind = excluded.kind, unit = excluded.unit
		RETURNING id`)
	// A run declared again (a newer tasks file) replaces the earlier one.
	w.run = prep(`INSERT OR REPLACE INTO task_runs (task_id, source_id, line, resource, gpus, start, end, units) VALUES (?,?,?,?,?,?,?,?)`)
	if err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.line, w.gpu, w.sample, w.task, w.run} {
		if st != nil {
			st.Close()
		}
	}
}

// Billing implements ingest.Sink. Lines are inserted billingBatchRows at a
// time; finish inserts the rest.
func (w *writer) Billing(l *ingest.BillingLine) error {
	if err := w.ctx.Err(); err != nil {
		return err // a batched line reaches the database later: check here
	}
	if !w.lines.add(l) {
		return nil
	}
	_, err := w.line.ExecContext(w.ctx, w.lines.args...)
	w.lines.reset()
	return err
}

// Sample implements ingest.Sink.
func (w *writer) Sample(s *ingest.GPUSample) error {
	key := s.GPUKey()
	id, ok := w.gpuIDs[key]
	if !ok {
		var idx any
		if s.Index >= 0 {
			idx = s.Index
		}
		if err := w.gpu.QueryRowContext(w.ctx, key, nullString(s.UUID), nullString(s.Host), idx,
			nullString(s.Model), floatOrNil(s.MemTotal)).Scan(&id); err != nil {
			return err
		}
		w.gpuIDs[key] = id
	}
	_, err := w.sample.ExecContext(w.ctx, id, s.Time.UnixMilli(), w.sourceID,
		floatOrNil(s.Util), floatOrNil(s.MemUsed), floatOrNil(s.PowerWatt))
	return err
}

// TaskRun implements ingest.Sink.
func (w *writer) TaskRun(r *ingest.TaskRun) error {
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
	_, err := w.run.ExecContext(w.ctx, id, w.sourceID, r.Line, r.Resource, gpus, r.Start.Unix(), r.End.Unix(), decText(r.Units))
	return err
}

func (w *writer) finish(ctx context.Context, sum *ingest.Summary) error {
	if err := w.flushBilling(ctx); err != nil {
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
		rows = ?, rows_rejected = ?, currency = ?, total_cost = ?, gpu_lines = ?, sample_interval_ms = ? WHERE id = ?`,
		sum.Format, sum.Kind, start, end, sum.Rows, len(sum.Rejected), nullString(strings.Join(sum.Currencies, ",")),
		total, sum.GPULines, interval, w.sourceID)
	if err != nil {
		return err
	}
	for _, r := range sum.Rejected {
		if _, err := w.tx.ExecContext(ctx, `INSERT INTO rejected_rows (source_id, line, field, message) VALUES (?,?,?,?)`,
			w.sourceID, r.Line, nullString(r.Field), r.Msg); err != nil {
			return err
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
	return d.String()
}

func floatOrNil(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func jsonOrNil(m map[string]string) (any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}
