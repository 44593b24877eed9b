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
	power    [dayMinutes]uint16  // whole watts; dayNoPower: no reading
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
		load: p.prep(`SELECT util, minutes, mem_used_max, power_sum, power_n, power FROM gpu_days WHERE gpu_id = ? AND day = ?`),
		upsert: p.prep(`INSERT INTO gpu_days (gpu_id, day, minutes, util, mem_used_max, power_sum, power_n, power)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (gpu_id, day) DO UPDATE SET minutes = excluded.minutes, util = excluded.util,
		mem_used_max = excluded.mem_used_max, power_sum = excluded.power_sum, power_n = excluded.power_n, power = excluded.power`),
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
	var blob, power []byte
	var minutes int64
	err := s.load.QueryRowContext(ctx, id, day).Scan(&blob, &minutes, &d.mem, &d.powerSum, &d.powerN, &power)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		nan := float32(math.NaN())
		for i := range d.util {
			d.util[i], d.power[i] = nan, dayNoPower
		}
		return nil
	case err != nil:
		return err
	}
	if err := decodeDay(blob, &d.util); err != nil {
		return err
	}
	if err := decodePower(power, &d.power); err != nil {
		return err
	}
	if power == nil {
		// A day compacted before schema 14 has only its power sum: its
		// minutes keep the watts a report read them with (dayPower), so
		// merging new minutes into it does not leave the old ones without.
		if w := dayPower(minutes, d.powerSum, d.powerN); w == w {
			p := powerWatts(w, 1)
			for i, u := range d.util {
				if u == u {
					d.power[i] = p
				}
			}
		}
	}
	return nil
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
	if d.power[i] == dayNoPower {
		d.power[i] = powerWatts(powerSum, powerN)
	}
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
	_, err := s.upsert.ExecContext(ctx, d.id, d.day, n, encodeDay(&d.util), d.mem, d.powerSum, d.powerN, encodePower(&d.power))
	d.changed = false
	return err
}
