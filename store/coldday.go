package store

import (
	"context"
	"database/sql"
	"math"
)

// coldDays writes the minutes of days older than the import's cut (days an
// ingest would compact when it ends, FileMeta.CompactBefore) straight into
// gpu_days, merged with what is stored there (storedDay), instead of writing
// a minute row each and compacting them again: a month-old log at one sample
// a minute costs one row per GPU-day rather than 1,440.
//
// Two kinds of minute still go to minute rows, where samples merge exactly
// by their millisecond (samples.go) and the ingest's compaction folds them
// after its last file: each GPU's first and last old minute of the file,
// so that two files of one ingest that split a minute between them add up
// as they would per minute; and a minute that comes back after later ones
// (samples out of time order). In a day, as in a compacted one, a minute
// that already has a mean keeps it (storedDay.fill).
type coldDays struct {
	ctx  context.Context
	cut  int64 // first minute not written here
	days dayStmts
	gpus map[int64]*coldGPU
}

// coldGPU is one GPU's old minutes in this import.
type coldGPU struct {
	last int64 // the latest old minute taken
	// The latest in-order minute, not folded yet (it may be the file's
	// last): its deduplicated samples, in a buffer the GPU reuses.
	held    []minuteSample
	hasHeld bool
	day     storedDay // the day being filled
	open    bool
}

func newColdDays(ctx context.Context, tx *sql.Tx, cut int64) (*coldDays, error) {
	p := preparer{ctx: ctx, tx: tx}
	c := &coldDays{ctx: ctx, cut: cut, days: prepareDayStmts(&p), gpus: map[int64]*coldGPU{}}
	if p.err != nil {
		c.days.close()
		return nil, p.err
	}
	return c, nil
}

// take routes one closed minute of GPU id, older than the cut, with its
// deduplicated samples xs (sorted by offset; take keeps no reference to
// them): into its day, or to minute rows through row.
func (c *coldDays) take(id, minute int64, xs []minuteSample, row func(pendingMinute) error) error {
	g := c.gpus[id]
	switch {
	case g == nil:
		c.gpus[id] = &coldGPU{last: minute}
		// The file's first: a file before may have ended in this minute.
		return row(newPendingMinute(id, minute, xs))
	case minute <= g.last:
		if g.hasHeld && g.last == minute {
			// Both as rows, in input order: the second merges into the
			// first sample by sample.
			if err := row(newPendingMinute(id, g.last, g.held)); err != nil {
				return err
			}
			g.hasHeld = false
		}
		return row(newPendingMinute(id, minute, xs))
	}
	if g.hasHeld {
		if err := c.fold(id, g); err != nil {
			return err
		}
	}
	g.held, g.hasHeld, g.last = append(g.held[:0], xs...), true, minute
	return nil
}

// fold adds the held minute, in order, to its GPU's day, writing the
// previous day when the minute starts another.
func (c *coldDays) fold(id int64, g *coldGPU) error {
	var r rollup
	for _, x := range g.held {
		r.addSample(x)
	}
	day := floorDiv(g.last, dayMinutes)
	if !g.open || g.day.day != day {
		if g.open {
			if err := c.days.write(c.ctx, &g.day); err != nil {
				return err
			}
		}
		if err := c.days.open(c.ctx, &g.day, id, day); err != nil {
			return err
		}
		g.open = true
	}
	util := float32(math.NaN())
	if r.utilN > 0 {
		util = float32(r.utilSum / float64(r.utilN))
	}
	g.day.fill(g.last-day*dayMinutes, util, r.mem, r.powerSum, r.powerN)
	return nil
}

// finish writes every open day and sends each GPU's last old minute to the
// minute rows, in GPU order.
func (c *coldDays) finish(order []int64, row func(pendingMinute) error) error {
	for _, id := range order {
		g := c.gpus[id]
		if g == nil {
			continue
		}
		if g.open {
			if err := c.days.write(c.ctx, &g.day); err != nil {
				return err
			}
		}
		if g.hasHeld {
			if err := row(newPendingMinute(id, g.last, g.held)); err != nil {
				return err
			}
			g.hasHeld = false
		}
	}
	return nil
}

func (c *coldDays) close() { c.days.close() }
