package store

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// defaultInterval is a GPU's sampling interval when no source says (a minute,
// what nvidia-smi loggers in cron lines mostly use).
const defaultInterval = time.Minute

// sampleIntervals returns each GPU's sampling interval for a window: the
// median spacing of the samples its sources delivered, as the median of the
// files' own medians weighted by their rows, over the files whose period
// overlaps [from, to) — so a week's figures do not depend on files outside
// it, and one odd file (a logger restarted at another rate) does not set the
// interval of the others. A GPU with no such file takes all its files; one
// with none of them saying, defaultInterval.
func (s *Store) sampleIntervals(ctx context.Context, from, to time.Time) (map[int64]time.Duration, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT gs.gpu_id, f.sample_interval_ms, f.rows,
		coalesce(f.period_start < ? AND f.period_end >= ?, 0)
		FROM gpu_sources gs JOIN source_files f ON f.id = gs.source_id
		WHERE f.sample_interval_ms > 0 ORDER BY gs.gpu_id`, to.Unix(), from.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: load sampling intervals: %w", err)
	}
	defer rows.Close()
	type file struct {
		ms, rows int64
		inWindow bool
	}
	byGPU := map[int64][]file{}
	for rows.Next() {
		var id int64
		var f file
		if err := rows.Scan(&id, &f.ms, &f.rows, &f.inWindow); err != nil {
			return nil, fmt.Errorf("store: load sampling intervals: %w", err)
		}
		byGPU[id] = append(byGPU[id], f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: load sampling intervals: %w", err)
	}
	out := make(map[int64]time.Duration, len(byGPU))
	for id, files := range byGPU {
		in := slices.DeleteFunc(slices.Clone(files), func(f file) bool { return !f.inWindow })
		if len(in) == 0 {
			in = files
		}
		ms, weights := make([]int64, len(in)), make([]int64, len(in))
		for i, f := range in {
			ms[i], weights[i] = f.ms, max(f.rows, 1)
		}
		out[id] = time.Duration(weightedMedian(ms, weights)) * time.Millisecond
	}
	return out, nil
}

// weightedMedian is the lower weighted median of values: the smallest value
// at which the weights of it and all smaller values reach half the total.
func weightedMedian(values, weights []int64) int64 {
	idx := make([]int, len(values))
	var total int64
	for i := range idx {
		idx[i] = i
		total += weights[i]
	}
	slices.SortFunc(idx, func(a, b int) int { return int(values[a] - values[b]) })
	var acc int64
	for _, i := range idx {
		acc += weights[i]
		if 2*acc >= total {
			return values[i]
		}
	}
	return 0
}
