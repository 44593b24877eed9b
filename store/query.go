package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/finops-oss/finops/ingest"
	"github.com/shopspring/decimal"
)

// GPUSeries is one GPU's utilization as per-minute means, the input of the
// minute grid.
type GPUSeries struct {
	Key   string // UUID, or host/index
	Host  string
	UUID  string
	Index int
	Model string
	// Minutes holds the mean utilization of each UTC minute that had at least
	// one sample with a value, sorted by minute.
	Minutes []MinuteUtil
	// Interval is the longest sampling interval among the GPU's sources: a
	// sample also covers the minutes after it up to this spacing.
	Interval time.Duration
}

// MinuteUtil is the mean utilization (0–100) of one minute.
type MinuteUtil struct {
	Minute int64 // unix seconds / 60
	Util   float64
}

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
	Currency     string
	TotalCost    string
	ImportedAt   time.Time
}

// Lines returns every billing line whose charge period overlaps [from, to).
// A zero-length line is an instant: it is returned when from <= start < to.
func (s *Store) Lines(ctx context.Context, from, to time.Time) ([]ingest.BillingLine, error) {
	var out []ingest.BillingLine
	err := s.EachLine(ctx, from, to, func(l *ingest.BillingLine) error {
		out = append(out, *l)
		return nil
	})
	return out, err
}

// GPUSeries returns per-minute mean utilization of every GPU with samples in
// [from, to). Telemetry is stored per minute, so the range is cut at whole
// minutes: a minute is in it when it overlaps [from, to).
func (s *Store) GPUSeries(ctx context.Context, from, to time.Time) ([]GPUSeries, error) {
	gpus, err := s.db.QueryContext(ctx, `SELECT g.id, g.gpu_key, coalesce(g.uuid,''), coalesce(g.host,''),
		coalesce(g.idx,-1), coalesce(g.model,''),
		coalesce((SELECT max(f.sample_interval_ms) FROM gpu_sources gs JOIN source_files f ON f.id = gs.source_id
			WHERE gs.gpu_id = g.id), 60000)
		FROM gpus g ORDER BY g.gpu_key`)
	if err != nil {
		return nil, fmt.Errorf("store: load GPUs: %w", err)
	}
	type gpu struct {
		id int64
		GPUSeries
	}
	var list []gpu
	for gpus.Next() {
		var g gpu
		var ms int64
		if err := gpus.Scan(&g.id, &g.Key, &g.UUID, &g.Host, &g.Index, &g.Model, &ms); err != nil {
			gpus.Close()
			return nil, fmt.Errorf("store: load GPUs: %w", err)
		}
		g.Interval = time.Duration(ms) * time.Millisecond
		list = append(list, g)
	}
	gpus.Close()
	if err := gpus.Err(); err != nil {
		return nil, fmt.Errorf("store: load GPUs: %w", err)
	}

	m0, _ := minuteOf(from.UnixMilli())
	m1, off := minuteOf(to.UnixMilli())
	if off > 0 {
		m1++
	}
	var out []GPUSeries
	for _, g := range list {
		rows, err := s.db.QueryContext(ctx, `SELECT minute, util_sum / util_n FROM gpu_minutes
			WHERE gpu_id = ? AND minute >= ? AND minute < ? AND util_n > 0 ORDER BY minute`,
			g.id, m0, m1)
		if err != nil {
			return nil, fmt.Errorf("store: load samples: %w", err)
		}
		for rows.Next() {
			var m MinuteUtil
			if err := rows.Scan(&m.Minute, &m.Util); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: load samples: %w", err)
			}
			g.Minutes = append(g.Minutes, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: load samples: %w", err)
		}
		if len(g.Minutes) > 0 {
			out = append(out, g.GPUSeries)
		}
	}
	return out, nil
}

// TaskRuns returns the task runs overlapping [from, to).
func (s *Store) TaskRuns(ctx context.Context, from, to time.Time) ([]ingest.TaskRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.line, t.name, coalesce(t.team,''), coalesce(t.kind,''),
		r.resource, r.gpus, r.start, r.end, r.units, coalesce(t.unit,'')
		FROM task_runs r JOIN tasks t ON t.id = r.task_id
		WHERE r.start < ? AND r.end > ? ORDER BY r.start, t.name`, to.Unix(), from.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: load task runs: %w", err)
	}
	defer rows.Close()
	var out []ingest.TaskRun
	for rows.Next() {
		var r ingest.TaskRun
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
		rows, rows_rejected, coalesce(currency,''), coalesce(total_cost,''), imported_at
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
			&src.RowsRejected, &src.Currency, &src.TotalCost, &imported); err != nil {
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
	for _, t := range []string{"source_files", "rejected_rows", "billing_lines", "gpus", "gpu_minutes", "tasks", "task_runs", "teams"} {
		var n int
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("store: count %s: %w", t, err)
		}
		out[t] = n
	}
	return out, nil
}
