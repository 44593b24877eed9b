package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
)

// storedDay is one GPU-day of gpu_days being merged with new minutes, by
// the compaction of minute rows (days.go) and by an import writing old days
// directly (coldday.go), so both give the same row. The rule is the one a
// compacted day has always had: its minutes are the first delivery and win;
// a new minute only fills a minute the day has no utilization for, and only
// the minutes it fills add their memory and power, so a minute delivered
// again is not counted twice.
type storedDay struct {
	id, day  int64
	util     [dayMinutes]float32 // NaN: no utilization
	mem      sql.NullFloat64
	powerSum float64
	powerN   int64
	changed  bool // a minute was filled: the row needs writing
}

// dayStmts are the two statements of a day's merge, on one transaction.
type dayStmts struct {
	load, upsert *sql.Stmt
}

func prepareDayStmts(p *preparer) dayStmts {
	return dayStmts{
		load: p.prep(`SELECT util, mem_used_max, power_sum, power_n FROM gpu_days WHERE gpu_id = ? AND day = ?`),
		upsert: p.prep(`INSERT INTO gpu_days (gpu_id, day, minutes, util, mem_used_max, power_sum, power_n)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (gpu_id, day) DO UPDATE SET minutes = excluded.minutes, util = excluded.util,
		mem_used_max = excluded.mem_used_max, power_sum = excluded.power_sum, power_n = excluded.power_n`),
	}
}

func (s dayStmts) close() {
	for _, st := range []*sql.Stmt{s.load, s.upsert} {
		if st != nil {
			st.Close()
		}
	}
}

// open starts d as GPU id's day, with what is stored of it.
func (s dayStmts) open(ctx context.Context, d *storedDay, id, day int64) error {
	*d = storedDay{id: id, day: day}
	var blob []byte
	err := s.load.QueryRowContext(ctx, id, day).Scan(&blob, &d.mem, &d.powerSum, &d.powerN)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		nan := float32(math.NaN())
		for i := range d.util {
			d.util[i] = nan
		}
		return nil
	case err != nil:
		return err
	}
	return decodeDay(blob, &d.util)
}

// fill merges one minute row into minute i of the day: util is its mean
// utilization (NaN: none), the rest its aggregates. Minutes come in
// increasing order, each once, so the power sum adds up in one order
// whichever path wrote the day.
func (d *storedDay) fill(i int64, util float32, mem sql.NullFloat64, powerSum float64, powerN int64) {
	if u := d.util[i]; u == u {
		return // stored: the first delivery wins
	}
	d.util[i] = util
	if mem.Valid && (!d.mem.Valid || mem.Float64 > d.mem.Float64) {
		d.mem = mem
	}
	d.powerSum += powerSum
	d.powerN += powerN
	d.changed = true
}

// write stores d when a minute was filled.
func (s dayStmts) write(ctx context.Context, d *storedDay) error {
	if !d.changed {
		return nil
	}
	n := 0
	for _, u := range d.util {
		if u == u {
			n++
		}
	}
	_, err := s.upsert.ExecContext(ctx, d.id, d.day, n, encodeDay(&d.util), d.mem, d.powerSum, d.powerN)
	d.changed = false
	return err
}
