package store

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"slices"
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
// as they would per minute; and a minute that comes back after it was
// folded (samples out of time order by more than foldLag). In a day, as in
// a compacted one, a minute that already has a mean keeps it
// (storedDay.fill).
type coldDays struct {
	ctx  context.Context
	cut  int64 // first minute not written here
	days dayStmts
	gpus map[int64]*coldGPU
}

// foldLag is how many minutes a GPU's latest minutes stay unfolded. A log
// whose clock steps back (NTP correcting a drifting host, a VM resumed)
// delivers some minutes twice, apart; while a minute is held its samples
// merge exactly, by their millisecond, as minute rows would. A minute that
// comes back after it was folded goes to a minute row, which the day's mean,
// already set, outweighs (storedDay.fill): only a step back of more than
// foldLag minutes in an old log loses samples that way.
const foldLag = 60

// coldGPU is one GPU's old minutes in this import.
type coldGPU struct {
	last int64 // the latest old minute taken
	// The latest in-order minutes, oldest first, not folded yet (the last
	// may be the file's last), each with its deduplicated samples.
	held  []heldMinute
	spare [][]minuteSample // sample buffers of folded minutes, for reuse
	day   storedDay        // the day being filled
	open  bool
}

// heldMinute is one minute of a coldGPU not yet folded into its day.
type heldMinute struct {
	minute  int64
	samples []minuteSample
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
		if i, ok := slices.BinarySearchFunc(g.held, minute, func(h heldMinute, m int64) int { return cmp.Compare(h.minute, m) }); ok {
			g.held[i].samples = mergeSamples(g.held[i].samples, xs)
			return nil
		}
		return row(newPendingMinute(id, minute, xs))
	}
	var buf []minuteSample
	if n := len(g.spare); n > 0 {
		buf, g.spare = g.spare[n-1][:0], g.spare[:n-1]
	}
	g.held, g.last = append(g.held, heldMinute{minute: minute, samples: append(buf, xs...)}), minute
	for len(g.held) > 0 && g.held[0].minute <= minute-foldLag {
		if err := c.fold(id, g, g.held[0]); err != nil {
			return err
		}
		g.spare = append(g.spare, g.held[0].samples)
		g.held = slices.Delete(g.held, 0, 1)
	}
	return nil
}

// mergeSamples adds the samples xs of a minute that came back to the ones
// held for it, as one minute row merges into another: the held ones came
// first, so they win at the same millisecond.
func mergeSamples(held, xs []minuteSample) []minuteSample {
	return dedupSamples(append(held, xs...))
}

// fold adds a held minute, in order, to its GPU's day, writing the previous
// day when the minute starts another.
func (c *coldDays) fold(id int64, g *coldGPU, h heldMinute) error {
	var r rollup
	for _, x := range h.samples {
		r.addSample(x)
	}
	day := floorDiv(h.minute, dayMinutes)
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
	g.day.fill(h.minute-day*dayMinutes, util, r.mem, r.powerSum, r.powerN)
	return nil
}

// finish folds each GPU's held minutes but the last, writes every open day
// and sends each GPU's last old minute to the minute rows, in GPU order.
func (c *coldDays) finish(order []int64, row func(pendingMinute) error) error {
	for _, id := range order {
		g := c.gpus[id]
		if g == nil {
			continue
		}
		n := len(g.held)
		for _, h := range g.held[:max(n-1, 0)] {
			if err := c.fold(id, g, h); err != nil {
				return err
			}
		}
		if g.open {
			if err := c.days.write(c.ctx, &g.day); err != nil {
				return err
			}
			g.open = false
		}
		if n > 0 {
			if err := row(newPendingMinute(id, g.held[n-1].minute, g.held[n-1].samples)); err != nil {
				return err
			}
		}
		g.held = nil
	}
	return nil
}

func (c *coldDays) close() { c.days.close() }
