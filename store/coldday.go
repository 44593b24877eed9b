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
	last int64          // the latest old minute taken
	held *pendingMinute // the latest in-order minute, not folded yet: it may be the file's last
	day  storedDay      // the day being filled; id 0 before the first
	open bool
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

// take routes one closed minute of GPU id, older than the cut: into its
// day, or to minute rows through row.
func (c *coldDays) take(id int64, p pendingMinute, row func(pendingMinute) error) error {
	g := c.gpus[id]
	switch {
	case g == nil:
		c.gpus[id] = &coldGPU{last: p.minute}
		return row(p) // the file's first: a file before may have ended in this minute
	case p.minute <= g.last:
		if g.held != nil && g.held.minute == p.minute {
			// Both as rows, in input order: the second merges into the
			// first sample by sample.
			if err := row(*g.held); err != nil {
				return err
			}
			g.held = nil
		}
		return row(p)
	}
	if g.held != nil {
		if err := c.fold(id, g, g.held); err != nil {
			return err
		}
	}
	g.held, g.last = &p, p.minute
	return nil
}

// fold adds an in-order minute to its GPU's day, writing the previous day
// when the minute starts another.
func (c *coldDays) fold(id int64, g *coldGPU, p *pendingMinute) error {
	day := floorDiv(p.minute, dayMinutes)
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
	if p.r.utilN > 0 {
		util = float32(p.r.utilSum / float64(p.r.utilN))
	}
	g.day.fill(p.minute-day*dayMinutes, util, p.r.mem, p.r.powerSum, p.r.powerN)
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
		if g.held != nil {
			if err := row(*g.held); err != nil {
				return err
			}
			g.held = nil
		}
	}
	return nil
}

func (c *coldDays) close() { c.days.close() }
