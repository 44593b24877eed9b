package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// Source is one imported file as the data-quality box lists it.
type Source struct {
	ID           int64
	URI          string
	Format       string
	Kind         string
	Host         string
	PeriodStart  time.Time
	PeriodEnd    time.Time
	Rows         int
	RowsRejected int
	// SamplesDropped counts telemetry readings dropped at ingest (a
	// utilization outside 0–100 %); Warnings the lines kept but warned about.
	SamplesDropped int
	Warnings       int
	Currency       string
	TotalCost      string
	ImportedAt     time.Time
}

// Lines returns every billing line whose charge period overlaps [from, to).
// A zero-length line is an instant: it is returned when from <= start < to.
func (s *Store) Lines(ctx context.Context, from, to time.Time) ([]finops.BillingLine, error) {
	// Sized first: a month of lines is most of a report's memory, and a
	// slice grown by appending would hold up to twice that while it copies.
	o, err := s.overlap(ctx, from, to)
	if err != nil {
		return nil, fmt.Errorf("store: count billing lines: %w", err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM billing_lines WHERE `+overlapWhere, o.args()...).Scan(&n); err != nil {
		return nil, fmt.Errorf("store: count billing lines: %w", err)
	}
	out := make([]finops.BillingLine, 0, n)
	var extra finops.BillingLine
	err = s.scanLines(ctx, from, to, func() *finops.BillingLine {
		if len(out) < cap(out) {
			out = out[:len(out)+1]
			return &out[len(out)-1]
		}
		extra = finops.BillingLine{} // an import committed since the count
		return &extra
	}, func(l *finops.BillingLine) error {
		if l == &extra {
			out = append(out, extra)
		}
		return nil
	})
	return out, err
}

// TaskRuns returns the task runs overlapping [from, to).
func (s *Store) TaskRuns(ctx context.Context, from, to time.Time) ([]finops.TaskRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.line, t.name, coalesce(t.team,''), coalesce(t.kind,''),
		r.resource, r.gpus, r.start, r.end, r.units, coalesce(t.unit,'')
		FROM task_runs r JOIN tasks t ON t.id = r.task_id
		WHERE r.start < ? AND r.end > ? ORDER BY r.start, t.name`, to.Unix(), from.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: load task runs: %w", err)
	}
	defer rows.Close()
	var out []finops.TaskRun
	for rows.Next() {
		var r finops.TaskRun
		var gpus, units sql.NullString
		var start, end int64
		if err := rows.Scan(&r.Line, &r.Task, &r.Team, &r.Kind, &r.Resource, &gpus, &start, &end, &units, &r.Unit); err != nil {
			return nil, fmt.Errorf("store: load task runs: %w", err)
		}
		r.Start, r.End = time.Unix(start, 0).UTC(), time.Unix(end, 0).UTC()
		if gpus.Valid {
			if err := json.Unmarshal([]byte(gpus.String), &r.GPUs); err != nil {
				return nil, fmt.Errorf("store: corrupt gpus in task_runs: %w", err)
			}
		}
		if units.Valid {
			d, err := decimal.NewFromString(units.String)
			if err != nil {
				return nil, fmt.Errorf("store: corrupt units in task_runs: %w", err)
			}
			r.Units = &d
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Sources lists imported files, newest first.
func (s *Store) Sources(ctx context.Context) ([]Source, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, uri, format, kind, coalesce(host,''), period_start, period_end,
		rows, rows_rejected, samples_dropped, warnings, coalesce(currency,''), coalesce(total_cost,''), imported_at
		FROM source_files ORDER BY imported_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: list sources: %w", err)
	}
	defer rows.Close()
	var out []Source
	for rows.Next() {
		var src Source
		var ps, pe sql.NullInt64
		var imported int64
		if err := rows.Scan(&src.ID, &src.URI, &src.Format, &src.Kind, &src.Host, &ps, &pe, &src.Rows,
			&src.RowsRejected, &src.SamplesDropped, &src.Warnings, &src.Currency, &src.TotalCost, &imported); err != nil {
			return nil, fmt.Errorf("store: list sources: %w", err)
		}
		if ps.Valid {
			src.PeriodStart, src.PeriodEnd = time.Unix(ps.Int64, 0).UTC(), time.Unix(pe.Int64, 0).UTC()
		}
		src.ImportedAt = time.Unix(imported, 0).UTC()
		out = append(out, src)
	}
	return out, rows.Err()
}

// RowsRejected counts rows rejected at ingest in files overlapping [from, to).
func (s *Store) RowsRejected(ctx context.Context, from, to time.Time) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT coalesce(sum(rows_rejected),0) FROM source_files
		WHERE period_start IS NULL OR (period_start < ? AND period_end >= ?)`, to.Unix(), from.Unix()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count rejected rows: %w", err)
	}
	return n, nil
}

// Counts returns the number of rows per table; tests use it to prove a failed
// import changed nothing.
func (s *Store) Counts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, t := range []string{"source_files", "rejected_rows", "source_warnings", "billing_lines", "gpus", "gpu_minutes", "gpu_days", "tasks", "task_runs", "teams"} {
		var n int
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("store: count %s: %w", t, err)
		}
		out[t] = n
	}
	return out, nil
}

// Warning is a line an import kept but warned about.
type Warning struct {
	URI   string
	Line  int
	Field string
	Msg   string
	// FileTotal is how many warnings the file had; the first few are kept.
	FileTotal int
}

func (w Warning) String() string {
	s := fmt.Sprintf("%s:%d", w.URI, w.Line)
	if w.Field != "" {
		s += fmt.Sprintf(": field %q", w.Field)
	}
	return s + ": " + w.Msg
}

// Warnings lists the stored warnings of the files overlapping [from, to),
// by file and line.
func (s *Store) Warnings(ctx context.Context, from, to time.Time) ([]Warning, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT f.uri, w.line, coalesce(w.field,''), w.message, f.warnings
		FROM source_warnings w JOIN source_files f ON f.id = w.source_id
		WHERE f.period_start IS NULL OR (f.period_start < ? AND f.period_end >= ?)
		ORDER BY f.uri, w.line, w.rowid`, to.Unix(), from.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: list warnings: %w", err)
	}
	defer rows.Close()
	var out []Warning
	for rows.Next() {
		var w Warning
		if err := rows.Scan(&w.URI, &w.Line, &w.Field, &w.Msg, &w.FileTotal); err != nil {
			return nil, fmt.Errorf("store: list warnings: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// SourceGPUs returns the keys of the GPUs each telemetry file whose data
// ends at or after since reported (gpu_sources), by source id: what the
// analysis needs to judge a source stale per resource, against billing
// (analysis/stale.go), without reading any sample.
func (s *Store) SourceGPUs(ctx context.Context, since time.Time) (map[int64][]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT gs.source_id, g.gpu_key FROM gpu_sources gs JOIN gpus g ON g.id = gs.gpu_id
		WHERE gs.source_id IN (SELECT id FROM source_files WHERE kind = 'utilization' AND period_end >= ?)
		ORDER BY gs.source_id, g.gpu_key`, since.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: list the GPUs of telemetry sources: %w", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var key string
		if err := rows.Scan(&id, &key); err != nil {
			return nil, fmt.Errorf("store: list the GPUs of telemetry sources: %w", err)
		}
		out[id] = append(out[id], key)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list the GPUs of telemetry sources: %w", err)
	}
	return out, nil
}
