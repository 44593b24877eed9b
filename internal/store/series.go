package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/finops-oss/finops"
)

// GPUSeries returns per-minute mean utilization of every GPU with samples in
// [from, to). Telemetry is stored per minute, so the range is cut at whole
// minutes: a minute is in it when it overlaps [from, to). Compacted days
// (gpu_days) and the hot minutes (gpu_minutes) are read together; where both
// hold a minute, the compacted one — the earlier delivery — wins.
func (s *Store) GPUSeries(ctx context.Context, from, to time.Time) ([]finops.GPUSeries, error) {
	list, r, err := s.gpuList(ctx, from, to)
	if err != nil {
		return nil, err
	}
	var out []finops.GPUSeries
	for _, g := range list {
		if err := r.read(ctx, g.id, &g.GPUSeries); err != nil {
			return nil, fmt.Errorf("store: load samples of GPU %s: %w", g.Key, err)
		}
		if g.Len() > 0 {
			out = append(out, g.GPUSeries)
		}
	}
	return out, nil
}

// seriesGPU is one row of gpus with what GPUSeries knows of it before its
// minutes are read.
type seriesGPU struct {
	id int64
	finops.GPUSeries
}

// gpuList lists every GPU with its sampling interval over [from, to), and
// the reader of their minutes in that range.
func (s *Store) gpuList(ctx context.Context, from, to time.Time) ([]seriesGPU, *seriesReader, error) {
	intervals, err := s.sampleIntervals(ctx, from, to)
	if err != nil {
		return nil, nil, err
	}
	gpus, err := s.db.QueryContext(ctx, `SELECT g.id, g.gpu_key, coalesce(g.uuid,''), coalesce(g.host,''),
		coalesce(g.idx,-1), coalesce(g.model,''), coalesce(g.slice_kind,''), coalesce(g.slice_profile,''),
		coalesce(g.slice_memory,0), coalesce(g.slice_compute,0)
		FROM gpus g ORDER BY g.gpu_key`)
	if err != nil {
		return nil, nil, fmt.Errorf("store: load GPUs: %w", err)
	}
	var list []seriesGPU
	for gpus.Next() {
		var g seriesGPU
		var sl finops.GPUSlice
		if err := gpus.Scan(&g.id, &g.Key, &g.UUID, &g.Host, &g.Index, &g.Model,
			&sl.Kind, &sl.Profile, &sl.MemoryFraction, &sl.ComputeFraction); err != nil {
			gpus.Close()
			return nil, nil, fmt.Errorf("store: load GPUs: %w", err)
		}
		if sl.Kind != "" {
			g.Slice = &sl
		}
		if g.Interval = intervals[g.id]; g.Interval <= 0 {
			g.Interval = defaultInterval
		}
		list = append(list, g)
	}
	gpus.Close()
	if err := gpus.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: load GPUs: %w", err)
	}
	return list, newSeriesReader(s, from, to), nil
}

// newSeriesReader reads minutes in [from, to), cut at whole minutes: a
// minute is in it when it overlaps the range.
func newSeriesReader(s *Store, from, to time.Time) *seriesReader {
	m0, _ := minuteOf(from.UnixMilli())
	m1, off := minuteOf(to.UnixMilli())
	if off > 0 {
		m1++
	}
	return &seriesReader{s: s, m0: m0, m1: m1}
}

// The two reads of a GPU's series, one range of its primary key each.
const (
	querySeriesMinutes = `SELECT minute, util_sum / util_n, CASE WHEN power_n > 0 THEN power_sum / power_n END FROM gpu_minutes
		WHERE gpu_id = ? AND minute >= ? AND minute < ? AND util_n > 0 ORDER BY minute`
	querySeriesDays = `SELECT day, util, minutes, power_sum, power_n, power FROM gpu_days
		WHERE gpu_id = ? AND day >= ? AND day < ? ORDER BY day`
	querySeriesDayMinutes = `SELECT coalesce(sum(minutes), 0) FROM gpu_days WHERE gpu_id = ? AND day >= ? AND day < ?`
)

// seriesReader reads one GPU's minutes in [m0, m1) from both tables.
type seriesReader struct {
	s      *Store
	m0, m1 int64
	day    [dayMinutes]float32
	power  [dayMinutes]uint16
	hot    []hotMinute
}

// hotMinute is a minute row's mean utilization and mean power (NaN: none).
type hotMinute struct {
	minute      int64
	util, power float64
}

func (r *seriesReader) read(ctx context.Context, id int64, g *finops.GPUSeries) error {
	// The hot minutes first: they fill what the compacted days lack.
	r.hot = r.hot[:0]
	rows, err := r.s.db.QueryContext(ctx, querySeriesMinutes, id, r.m0, r.m1)
	if err != nil {
		return err
	}
	for rows.Next() {
		var m hotMinute
		var power sql.NullFloat64
		if err := rows.Scan(&m.minute, &m.util, &power); err != nil {
			rows.Close()
			return err
		}
		m.power = math.NaN()
		if power.Valid {
			m.power = power.Float64
		}
		r.hot = append(r.hot, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	d0, d1 := floorDiv(r.m0, dayMinutes), floorDiv(r.m1-1, dayMinutes)+1
	// Sized first: a quarter of a GPU sampled every minute is 130,000
	// minutes, and a fleet's series grown by appending would hold up to
	// twice that while they copy.
	var n int64
	if err := r.s.db.QueryRowContext(ctx, querySeriesDayMinutes, id, d0, d1).Scan(&n); err != nil {
		return err
	}
	n += int64(len(r.hot))
	g.Grow(int(n))
	days, err := r.s.db.QueryContext(ctx, querySeriesDays, id, d0, d1)
	if err != nil {
		return err
	}
	defer days.Close()
	h := 0 // next hot minute
	addHot := func(upTo int64) {
		for ; h < len(r.hot) && r.hot[h].minute < upTo; h++ {
			g.AddPower(r.hot[h].minute, r.hot[h].util, r.hot[h].power)
		}
	}
	for days.Next() {
		var minutes, powerN int64
		var powerSum float64
		var power sql.RawBytes // decoded before the next row, as util is
		day, err := r.scanDay(days, &minutes, &powerSum, &powerN, &power)
		if err != nil {
			return err
		}
		if err := decodePower(power, &r.power); err != nil {
			return fmt.Errorf("day %s: %w", time.Unix(day*86400, 0).UTC().Format(time.DateOnly), err)
		}
		// A day compacted before schema 14 has no per-minute power: each
		// minute reads the day's mean (dayPower).
		mean := math.NaN()
		if power == nil {
			mean = dayPower(minutes, powerSum, powerN)
		}
		base := day * dayMinutes
		addHot(base)
		for i, u := range r.day {
			m := base + int64(i)
			if m < r.m0 || m >= r.m1 {
				continue
			}
			for ; h < len(r.hot) && r.hot[h].minute < m; h++ {
				g.AddPower(r.hot[h].minute, r.hot[h].util, r.hot[h].power)
			}
			if u == u { // not NaN
				watts := mean
				if w := r.power[i]; w != dayNoPower {
					watts = float64(w)
				}
				g.AddPower(m, float64(u), watts)
				if h < len(r.hot) && r.hot[h].minute == m {
					h++ // the compacted minute wins
				}
			}
		}
	}
	if err := days.Err(); err != nil {
		return err
	}
	addHot(math.MaxInt64)
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// scanDay decodes a (day, util, more...) row of gpu_days into r.day, and
// the columns after util into more.
func (r *seriesReader) scanDay(rows *sql.Rows, more ...any) (int64, error) {
	var day int64
	var blob sql.RawBytes // decoded before the next row: no copy of 5.6 KiB a GPU-day
	if err := rows.Scan(append([]any{&day, &blob}, more...)...); err != nil {
		return 0, err
	}
	if err := decodeDay(blob, &r.day); err != nil {
		return 0, fmt.Errorf("day %s: %w", time.Unix(day*86400, 0).UTC().Format(time.DateOnly), err)
	}
	return day, nil
}

// dayPower is the power (W) each minute of a day compacted before schema 14
// is read with: such a day keeps only its power sum and count, so every minute
// with utilization takes the day's mean when the day has at least one power
// reading per such minute. With fewer, some minutes had none and which is
// unknown: no minute gets one (NaN), and the report's energy is a lower
// bound there rather than a guess (docs/METRICS.md §Energy).
func dayPower(minutes int64, powerSum float64, powerN int64) float64 {
	if powerN <= 0 || powerN < minutes {
		return math.NaN()
	}
	return powerSum / float64(powerN)
}
