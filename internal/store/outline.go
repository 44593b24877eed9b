package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/finops-oss/finops"
)

// GPUOutlines is GPUSeries without the minutes: every GPU with samples in
// [from, to), each an outline (finops.GPUSeries.SetSpan) of its first and
// last minute there. A quarter of a fleet's minutes is hundreds of MB; the
// analysis needs them one resource at a time and asks LoadSeries for them.
func (s *Store) GPUOutlines(ctx context.Context, from, to time.Time) ([]finops.GPUSeries, error) {
	list, r, err := s.gpuList(ctx, from, to)
	if err != nil {
		return nil, err
	}
	var out []finops.GPUSeries
	for _, g := range list {
		first, last, ok, err := r.span(ctx, g.id)
		if err != nil {
			return nil, fmt.Errorf("store: outline samples of GPU %s: %w", g.Key, err)
		}
		if ok {
			g.SetSpan(first, last)
			out = append(out, g.GPUSeries)
		}
	}
	return out, nil
}

// LoadSeries reads the minutes in [from, to) of the GPU an outline of
// GPUOutlines describes: what GPUSeries over the same range has for it.
func (s *Store) LoadSeries(ctx context.Context, outline *finops.GPUSeries, from, to time.Time) (finops.GPUSeries, error) {
	g := outline.Identity()
	var id int64
	if err := s.db.QueryRowContext(ctx, queryGPUByKey, g.Key).Scan(&id); err != nil {
		return g, fmt.Errorf("store: load samples of GPU %s: %w", g.Key, err)
	}
	if err := newSeriesReader(s, from, to).read(ctx, id, &g); err != nil {
		return g, fmt.Errorf("store: load samples of GPU %s: %w", g.Key, err)
	}
	return g, nil
}

// Where a GPU's minutes in a range begin and end, one end at a time: the
// hot minutes' bounds, and the compacted days from each end until one has
// a minute with a value in the range.
const (
	querySpanMinutes = `SELECT min(minute), max(minute) FROM gpu_minutes
		WHERE gpu_id = ? AND minute >= ? AND minute < ? AND util_n > 0`
	querySpanDaysFirst = `SELECT day, util FROM gpu_days WHERE gpu_id = ? AND day >= ? AND day < ? ORDER BY day`
	querySpanDaysLast  = `SELECT day, util FROM gpu_days WHERE gpu_id = ? AND day >= ? AND day < ? ORDER BY day DESC`
	queryGPUByKey      = `SELECT id FROM gpus WHERE gpu_key = ?`
)

// span is the first and last minute in [m0, m1) where GPU id has a value in
// either table: read keeps every such minute, the compacted value winning
// where both have one.
func (r *seriesReader) span(ctx context.Context, id int64) (first, last int64, ok bool, err error) {
	var lo, hi sql.NullInt64
	if err := r.s.db.QueryRowContext(ctx, querySpanMinutes, id, r.m0, r.m1).Scan(&lo, &hi); err != nil {
		return 0, 0, false, err
	}
	if lo.Valid {
		first, last, ok = lo.Int64, hi.Int64, true
	}
	d0, d1 := floorDiv(r.m0, dayMinutes), floorDiv(r.m1-1, dayMinutes)+1
	for _, end := range []struct {
		query string
		first bool
	}{{querySpanDaysFirst, true}, {querySpanDaysLast, false}} {
		m, found, err := r.dayEdge(ctx, end.query, id, d0, d1, end.first)
		if err != nil {
			return 0, 0, false, err
		}
		switch {
		case !found:
		case !ok:
			first, last, ok = m, m, true
		case end.first:
			first = min(first, m)
		default:
			last = max(last, m)
		}
	}
	return first, last, ok, nil
}

// dayEdge walks GPU id's compacted days in the query's order and returns
// the first (or, walking backwards, the last) minute in [m0, m1) with a value.
func (r *seriesReader) dayEdge(ctx context.Context, query string, id, d0, d1 int64, forward bool) (int64, bool, error) {
	rows, err := r.s.db.QueryContext(ctx, query, id, d0, d1)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	for rows.Next() {
		day, err := r.scanDay(rows)
		if err != nil {
			return 0, false, err
		}
		for k := range dayMinutes {
			i := k
			if !forward {
				i = dayMinutes - 1 - k
			}
			m := day*dayMinutes + int64(i)
			if u := r.day[i]; u == u && m >= r.m0 && m < r.m1 {
				return m, true, nil
			}
		}
	}
	return 0, false, rows.Err()
}
