package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// Telemetry is written per GPU-minute (gpu_minutes, samples.go), where a
// sample delivered twice is recognised by its millisecond. Once a day is old
// enough not to be delivered again, CompactTelemetry folds its minutes into
// one gpu_days row: the mean utilization of each of its 1,440 minutes as
// float32 (what the analysis computes with, so a report reads the same
// numbers before and after), the day's most memory used, its power sum and,
// when the day has a power reading, each minute's mean power in whole watts
// (2.8 KiB more). A year of 1,000 GPUs sampled every minute is 365,000 rows
// of 5.6 KiB (8.4 KiB with power) instead of 525 million minute rows.

const dayMinutes = 1440

// dayBlobLen is the size of a gpu_days.util blob.
const dayBlobLen = 4 * dayMinutes

// encodeDay packs a day's per-minute means (NaN: no sample).
func encodeDay(util *[dayMinutes]float32) []byte {
	b := make([]byte, dayBlobLen)
	for i, u := range util {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(u))
	}
	return b
}

// decodeDay unpacks a gpu_days.util blob into util.
func decodeDay(b []byte, util *[dayMinutes]float32) error {
	if len(b) != dayBlobLen {
		return fmt.Errorf("utilization blob of %d bytes, want %d: the database is damaged (finops restore)", len(b), dayBlobLen)
	}
	for i := range util {
		util[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return nil
}

// dayNoPower marks a minute without a power reading in a gpu_days.power
// blob: the value finops.GPUSeries uses for one.
const dayNoPower = math.MaxUint16

// dayPowerLen is the size of a gpu_days.power blob: the mean power of each
// minute in whole watts, uint16, as finops.GPUSeries holds it, so a report
// reads the same watts before and after compaction.
const dayPowerLen = 2 * dayMinutes

// powerWatts is a minute's mean power as a day stores it: whole watts, or
// dayNoPower when it has none or a value two bytes cannot hold (what
// finops.GPUSeries.AddPower drops too).
func powerWatts(powerSum float64, powerN int64) uint16 {
	if powerN <= 0 {
		return dayNoPower
	}
	w := math.Round(powerSum / float64(powerN))
	if math.IsNaN(w) || w < 0 || w >= dayNoPower {
		return dayNoPower
	}
	return uint16(w)
}

// encodePower packs a day's per-minute watts, or nil (a NULL column) when no
// minute has one: a fleet without power readings pays nothing for them.
func encodePower(power *[dayMinutes]uint16) []byte {
	var b []byte
	for i, w := range power {
		if w == dayNoPower {
			continue
		}
		if b == nil {
			b = make([]byte, dayPowerLen)
			for j := range power {
				binary.LittleEndian.PutUint16(b[2*j:], dayNoPower)
			}
		}
		binary.LittleEndian.PutUint16(b[2*i:], w)
	}
	return b
}

// decodePower unpacks a gpu_days.power blob into power; a NULL one (a day
// without power readings, or one compacted before schema 14) leaves every
// minute without.
func decodePower(b []byte, power *[dayMinutes]uint16) error {
	if b == nil {
		for i := range power {
			power[i] = dayNoPower
		}
		return nil
	}
	if len(b) != dayPowerLen {
		return fmt.Errorf("power blob of %d bytes, want %d: the database is damaged (finops restore)", len(b), dayPowerLen)
	}
	for i := range power {
		power[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return nil
}

// DefaultHotDays is how many days of telemetry stay per minute before
// CompactTelemetry folds them into days: longer than logs overlap or a
// Prometheus day is fetched again, short enough that a weekly report reads
// most of its four-week lookback as whole days.
const DefaultHotDays = 3

// CompactBefore is where telemetry stops being kept per minute at now, with
// hotDays days kept (0: DefaultHotDays): the days that ended before it are
// compacted after an ingest, and an import writes them as GPU-days directly
// (FileMeta.CompactBefore).
func CompactBefore(now time.Time, hotDays int) time.Time {
	if hotDays == 0 {
		hotDays = DefaultHotDays
	}
	return now.UTC().AddDate(0, 0, -hotDays)
}

// Compacted says what CompactTelemetry did.
type Compacted struct {
	Days    int // GPU-days written or merged
	Minutes int // minute rows folded into them
}

// CompactTelemetry folds the telemetry minutes of every UTC day that ended
// before `before` into gpu_days, in one transaction. A day compacted before
// keeps its minutes: a minute delivered again later only fills a minute the
// day had no sample for (the first delivery wins, as it does per minute).
func (s *Store) CompactTelemetry(ctx context.Context, before time.Time) (Compacted, error) {
	var c Compacted
	cut := floorDiv(before.Unix(), 86400) * dayMinutes // first minute kept hot
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return c, fmt.Errorf("store: compact telemetry: %w", err)
	}
	defer tx.Rollback()

	var ids []int64
	rows, err := tx.QueryContext(ctx, `SELECT id FROM gpus WHERE EXISTS
		(SELECT 1 FROM gpu_minutes m WHERE m.gpu_id = gpus.id AND m.minute < ?) ORDER BY id`, cut)
	if err != nil {
		return c, fmt.Errorf("store: compact telemetry: %w", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return c, fmt.Errorf("store: compact telemetry: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, fmt.Errorf("store: compact telemetry: %w", err)
	}
	if len(ids) == 0 {
		return c, nil
	}

	// The import's small page cache, for the same reason: the transaction
	// rewrites many pages, which SQLite would otherwise hold dirty in its
	// cache before spilling them to the WAL.
	restoreCache, err := smallCache(ctx, tx)
	if err != nil {
		return c, fmt.Errorf("store: compact telemetry: %w", err)
	}
	dc := dayCompactor{tx: tx}
	defer dc.close()
	for _, id := range ids {
		if err := dc.gpu(ctx, id, cut, &c); err != nil {
			return c, fmt.Errorf("store: compact telemetry of GPU %d: %w", id, err)
		}
	}
	if err := restoreCache(); err != nil {
		return c, fmt.Errorf("store: compact telemetry: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return c, fmt.Errorf("store: compact telemetry: %w", err)
	}
	return c, nil
}

// dayCompactor folds one GPU's old minutes into days, a day at a time.
type dayCompactor struct {
	tx    *sql.Tx
	days  dayStmts
	purge *sql.Stmt
	cur   storedDay
}

// dayRows is one GPU-day being assembled from its minute rows.
type dayRows struct {
	day   int64
	util  [dayMinutes]float32 // NaN: no utilization
	mem   [dayMinutes]float64 // NaN: no memory reading
	power [dayMinutes]float64
	pn    [dayMinutes]int32
	seen  [dayMinutes]bool // a minute row exists
}

func (dc *dayCompactor) close() {
	dc.days.close()
	if dc.purge != nil {
		dc.purge.Close()
	}
}

func (dc *dayCompactor) prepare(ctx context.Context) error {
	if dc.purge != nil {
		return nil
	}
	p := preparer{ctx: ctx, tx: dc.tx}
	dc.days = prepareDayStmts(&p)
	dc.purge = p.prep(`DELETE FROM gpu_minutes WHERE gpu_id = ? AND minute < ?`)
	return p.err
}

// gpu compacts GPU id's minutes before minute cut, then deletes them.
func (dc *dayCompactor) gpu(ctx context.Context, id, cut int64, c *Compacted) error {
	if err := dc.prepare(ctx); err != nil {
		return err
	}
	rows, err := dc.tx.QueryContext(ctx, `SELECT minute, util_sum, util_n, mem_used_max, power_sum, power_n
		FROM gpu_minutes WHERE gpu_id = ? AND minute < ? ORDER BY minute`, id, cut)
	if err != nil {
		return err
	}
	// The minutes are read into days first and written after: one statement
	// at a time on the transaction's connection.
	var days []*dayRows
	var cur *dayRows
	nan := float32(math.NaN())
	for rows.Next() {
		var minute, utilN, powerN int64
		var utilSum, powerSum float64
		var mem sql.NullFloat64
		if err := rows.Scan(&minute, &utilSum, &utilN, &mem, &powerSum, &powerN); err != nil {
			rows.Close()
			return err
		}
		d := floorDiv(minute, dayMinutes)
		if cur == nil || cur.day != d {
			cur = &dayRows{day: d}
			for i := range cur.util {
				cur.util[i], cur.mem[i] = nan, math.NaN()
			}
			days = append(days, cur)
		}
		i := minute - d*dayMinutes
		cur.seen[i] = true
		if utilN > 0 {
			cur.util[i] = float32(utilSum / float64(utilN))
		}
		if mem.Valid {
			cur.mem[i] = mem.Float64
		}
		cur.power[i], cur.pn[i] = powerSum, int32(powerN)
		c.Minutes++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, p := range days {
		if err := dc.write(ctx, id, p); err != nil {
			return err
		}
		c.Days++
	}
	_, err = dc.purge.ExecContext(ctx, id, cut)
	return err
}

// write stores one GPU-day, merged into the stored day if there is one
// (storedDay.fill: the stored minutes win).
func (dc *dayCompactor) write(ctx context.Context, id int64, p *dayRows) error {
	if err := dc.days.open(ctx, &dc.cur, id, p.day); err != nil {
		return err
	}
	for i := range p.seen {
		if !p.seen[i] {
			continue
		}
		mem := sql.NullFloat64{Float64: p.mem[i], Valid: p.mem[i] == p.mem[i]}
		dc.cur.fill(int64(i), p.util[i], mem, p.power[i], int64(p.pn[i]))
	}
	return dc.days.write(ctx, &dc.cur)
}
