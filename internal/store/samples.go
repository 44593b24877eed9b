package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/finops-oss/finops"
)

// Telemetry is kept as per-GPU-minute rollups (table gpu_minutes): the sum and
// count of the utilization samples of each minute, the most memory used, the
// power sum and count, and each sample's millisecond within the minute so
// that a sample delivered twice (overlapping logs, a re-fetched Prometheus
// day) is counted once — the first delivery wins, as it did when every raw
// sample was a row. The database grows with GPUs × minutes, not with the
// sampling rate, and the minute grid needs nothing more.

// minuteSample is one sample waiting in its minute's accumulator.
type minuteSample struct {
	off                    uint16 // millisecond within the minute
	util, mem, power       float64
	hasUtil, hasMem, hasPw bool
}

// minuteAcc collects one GPU's samples of its current minute.
type minuteAcc struct {
	minute  int64
	samples []minuteSample
}

// minuteWriter rolls a stream of samples up into gpu_minutes inside an import
// transaction. It holds at most one open minute per GPU, so its memory is
// bounded by the number of GPUs, not by the length of the input.
type minuteWriter struct {
	ctx      context.Context
	sourceID int64

	tx                           *sql.Tx
	insert, load, update, source *sql.Stmt            // insert takes minuteBatch rows at once
	open                         map[int64]*minuteAcc // GPU id → its open minute
	order                        []int64              // GPU ids in first-seen order (deterministic flush)
	batch                        []pendingMinute      // closed minutes not written yet
	cold                         *coldDays            // minutes before the cut go to gpu_days; nil: none

	// Full batches are written by a second goroutine while the parser goes
	// on (database/sql serialises the two on the transaction's connection):
	// parsing and SQLite each take about half the time of a large log.
	restoreCache func() error // puts the connection's page cache back; nil until the first sample

	work, free chan []pendingMinute
	done       chan struct{}
	errMu      sync.Mutex
	err        error            // the writer goroutine's first error
	args       []any            // writer goroutine: argument buffer
	returned   map[[2]int64]int // writer goroutine: rows the batch insert wrote
}

// minuteBatch is how many minute rows one INSERT writes (10 values each,
// far below SQLite's 32,766 variables): one statement per 256 rows instead
// of one per row is most of the cost of a large log.
const minuteBatch = 256

// minuteBuffer is how many closed minutes are collected, then sorted by GPU
// and minute, before they are written. A fleet's log is in time order, so
// consecutive minutes belong to different GPUs, and written in that order
// every row lands on another page of the (gpu_id, minute) key: SQLite copied
// a page into the statement journal and out of its cache for nearly every
// row. Sorted, a GPU's minutes of the buffer go to one page in one
// statement (docs/BENCHMARKS.md §Telemetry).
const minuteBuffer = 16384

// bufferSize is how many closed minutes to collect before sorting and
// writing them: about 16 per GPU seen, between 1,024 and minuteBuffer. A few
// GPUs' minutes already come grouped; a fleet's need the full buffer.
func (m *minuteWriter) bufferSize() int {
	return min(max(16*len(m.order), 4*minuteBatch), minuteBuffer)
}

// pendingMinute is one closed minute waiting for its batch.
type pendingMinute struct {
	id, minute int64
	r          rollup
	samples    []minuteSample // deduplicated, sorted by offset: for a merge
}

func minuteInsert(rows int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO gpu_minutes (gpu_id, minute, n, util_sum, util_n, mem_used_max, power_sum, power_n, offsets, source_id) VALUES `)
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?,?,?,?,?,?)")
	}
	// Rows whose minute is already stored are not inserted and not returned:
	// they are merged one by one.
	b.WriteString(` ON CONFLICT (gpu_id, minute) DO NOTHING RETURNING gpu_id, minute`)
	return b.String()
}

// newMinuteWriter writes the samples of source sourceID; those of UTC days
// that ended before compactBefore (zero: none) go straight into gpu_days
// (coldday.go).
func newMinuteWriter(ctx context.Context, tx *sql.Tx, sourceID int64, compactBefore time.Time) (*minuteWriter, error) {
	m := &minuteWriter{ctx: ctx, tx: tx, sourceID: sourceID, open: map[int64]*minuteAcc{}, returned: map[[2]int64]int{}}
	p := preparer{ctx: ctx, tx: tx}
	prep := p.prep
	m.insert = prep(minuteInsert(minuteBatch))
	m.load = prep(`SELECT n, util_sum, util_n, mem_used_max, power_sum, power_n, offsets FROM gpu_minutes WHERE gpu_id = ? AND minute = ?`)
	m.update = prep(`UPDATE gpu_minutes SET n = ?, util_sum = ?, util_n = ?, mem_used_max = ?, power_sum = ?, power_n = ?, offsets = ?
		WHERE gpu_id = ? AND minute = ?`)
	m.source = prep(`INSERT OR IGNORE INTO gpu_sources (gpu_id, source_id) VALUES (?, ?)`)
	if p.err != nil {
		m.close()
		return nil, p.err
	}
	if !compactBefore.IsZero() {
		var err error
		if m.cold, err = newColdDays(ctx, tx, floorDiv(compactBefore.Unix(), 86400)*dayMinutes); err != nil {
			m.close()
			return nil, err
		}
	}
	return m, nil
}

func (m *minuteWriter) close() {
	m.stop()
	for _, st := range []*sql.Stmt{m.insert, m.load, m.update, m.source} {
		if st != nil {
			st.Close()
		}
	}
	if m.cold != nil {
		m.cold.close()
	}
}

// minuteOf splits a sample time into its UTC minute and millisecond offset.
func minuteOf(ms int64) (int64, uint16) {
	min := ms / 60000
	if ms < 0 && ms%60000 != 0 {
		min--
	}
	return min, uint16(ms - min*60000)
}

// add takes one sample of GPU id.
func (m *minuteWriter) add(id int64, s *finops.GPUSample) error {
	if err := m.ctx.Err(); err != nil {
		return err // a rolled-up sample reaches the database later: check here
	}
	if err := m.failed(); err != nil {
		return err
	}
	if m.restoreCache == nil {
		var err error
		if m.restoreCache, err = smallCache(m.ctx, m.tx); err != nil {
			return err
		}
	}
	acc := m.open[id]
	if acc == nil {
		if _, err := m.source.ExecContext(m.ctx, id, m.sourceID); err != nil {
			return err
		}
		acc = &minuteAcc{minute: -1 << 62}
		m.open[id] = acc
		m.order = append(m.order, id)
	}
	min, off := minuteOf(s.Time.UnixMilli())
	if min != acc.minute {
		if err := m.flush(id, acc); err != nil {
			return err
		}
		acc.minute = min
	}
	x := minuteSample{off: off}
	if s.Util != nil {
		x.util, x.hasUtil = *s.Util, true
	}
	if s.MemUsed != nil {
		x.mem, x.hasMem = *s.MemUsed, true
	}
	if s.PowerWatt != nil {
		x.power, x.hasPw = *s.PowerWatt, true
	}
	acc.samples = append(acc.samples, x)
	return nil
}

// finish writes every open minute.
func (m *minuteWriter) finish() error {
	for _, id := range m.order {
		if err := m.flush(id, m.open[id]); err != nil {
			return err
		}
	}
	if m.cold != nil {
		if err := m.cold.finish(m.order, m.queue); err != nil {
			return err
		}
	}
	if len(m.batch) > 0 {
		m.send()
	}
	m.stop()
	if err := m.failed(); err != nil {
		return err
	}
	if m.restoreCache != nil {
		return m.restoreCache()
	}
	return nil
}

// send hands the batch to the writer goroutine, starting it the first time.
func (m *minuteWriter) send() {
	if m.work == nil {
		m.work, m.free, m.done = make(chan []pendingMinute, 2), make(chan []pendingMinute, 4), make(chan struct{})
		go m.writer()
	}
	m.work <- m.batch
	select {
	case b := <-m.free:
		m.batch = b[:0]
	default:
		m.batch = make([]pendingMinute, 0, m.bufferSize())
	}
}

// writer writes the batches it is sent, in order, until the channel closes;
// after an error it only drains.
func (m *minuteWriter) writer() {
	defer close(m.done)
	for b := range m.work {
		// Stable: of two rows of one GPU-minute (samples that went back to
		// an earlier minute), the first flushed is inserted and the second
		// merged into it, as in input order.
		slices.SortStableFunc(b, func(x, y pendingMinute) int {
			if x.id != y.id {
				return cmp.Compare(x.id, y.id)
			}
			return cmp.Compare(x.minute, y.minute)
		})
		for rest := b; len(rest) > 0 && m.failed() == nil; {
			n := min(len(rest), minuteBatch)
			if err := m.writeBatch(rest[:n]); err != nil {
				m.errMu.Lock()
				m.err = err
				m.errMu.Unlock()
			}
			rest = rest[n:]
		}
		select {
		case m.free <- b:
		default:
		}
	}
}

// stop waits for the writer goroutine to finish what it was sent.
func (m *minuteWriter) stop() {
	if m.work != nil {
		close(m.work)
		<-m.done
		m.work = nil
	}
}

func (m *minuteWriter) failed() error {
	m.errMu.Lock()
	defer m.errMu.Unlock()
	return m.err
}

// rollup is one minute row's aggregates.
type rollup struct {
	n, utilN, powerN  int64
	utilSum, powerSum float64
	mem               sql.NullFloat64
	offsets           []byte
}

func (r *rollup) addSample(x minuteSample) {
	r.n++
	if x.hasUtil {
		r.utilSum += x.util
		r.utilN++
	}
	if x.hasPw {
		r.powerSum += x.power
		r.powerN++
	}
	if x.hasMem && (!r.mem.Valid || x.mem > r.mem.Float64) {
		r.mem = sql.NullFloat64{Float64: x.mem, Valid: true}
	}
}

// flush closes acc's minute: its rollup joins the batch, written when full.
func (m *minuteWriter) flush(id int64, acc *minuteAcc) error {
	if len(acc.samples) == 0 {
		return nil
	}
	xs := dedupSamples(acc.samples)
	acc.samples = acc.samples[:0]
	if m.cold != nil && acc.minute < m.cold.cut {
		return m.cold.take(id, acc.minute, xs, m.queue)
	}
	return m.queue(newPendingMinute(id, acc.minute, xs))
}

// dedupSamples sorts a minute's samples by offset, in place, and keeps one
// per millisecond: stable, so of two samples at the same instant the one
// that came first wins (a sample delivered twice counts once).
func dedupSamples(xs []minuteSample) []minuteSample {
	slices.SortStableFunc(xs, func(a, b minuteSample) int { return int(a.off) - int(b.off) })
	k := 0
	for _, x := range xs {
		if k > 0 && x.off == xs[k-1].off {
			continue
		}
		xs[k] = x
		k++
	}
	return xs[:k]
}

// newPendingMinute is a minute row of deduplicated samples xs, sorted by
// offset; it copies them, as the row is written by the writer goroutine.
func newPendingMinute(id, minute int64, xs []minuteSample) pendingMinute {
	p := pendingMinute{id: id, minute: minute, samples: slices.Clone(xs)}
	p.r.offsets = make([]byte, 0, 2*len(xs))
	for _, x := range xs {
		p.r.addSample(x)
		p.r.offsets = binary.BigEndian.AppendUint16(p.r.offsets, x.off)
	}
	return p
}

// queue adds a closed minute to the batch of minute rows, sent when full.
func (m *minuteWriter) queue(p pendingMinute) error {
	m.batch = append(m.batch, p)
	if len(m.batch) >= m.bufferSize() {
		m.send()
	}
	return nil
}

// writeBatch inserts the batch's new minutes in one statement and merges
// the ones already stored.
func (m *minuteWriter) writeBatch(batch []pendingMinute) error {
	st := m.insert
	if len(batch) < minuteBatch {
		var err error
		if st, err = m.tx.PrepareContext(m.ctx, minuteInsert(len(batch))); err != nil {
			return err
		}
		defer st.Close()
	}
	m.args = m.args[:0]
	for i := range batch {
		p := &batch[i]
		m.args = append(m.args, p.id, p.minute, p.r.n, p.r.utilSum, p.r.utilN, p.r.mem, p.r.powerSum, p.r.powerN, p.r.offsets, m.sourceID)
	}
	rows, err := st.QueryContext(m.ctx, m.args...)
	if err != nil {
		return err
	}
	clear(m.returned)
	for rows.Next() {
		var k [2]int64
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			rows.Close()
			return err
		}
		m.returned[k]++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range batch {
		p := &batch[i]
		// The first row of a (GPU, minute) in the batch is the one inserted.
		if k := [2]int64{p.id, p.minute}; m.returned[k] > 0 {
			m.returned[k]--
			continue
		}
		if err := m.merge(p); err != nil {
			return err
		}
	}
	return nil
}

// merge adds to a stored minute only the samples it has not seen.
func (m *minuteWriter) merge(p *pendingMinute) error {
	var old rollup
	if err := m.load.QueryRowContext(m.ctx, p.id, p.minute).Scan(&old.n, &old.utilSum, &old.utilN, &old.mem,
		&old.powerSum, &old.powerN, &old.offsets); err != nil {
		return fmt.Errorf("load GPU minute: %w", err)
	}
	offs := make([]uint16, 0, len(old.offsets)/2+len(p.samples))
	for i := 0; i+1 < len(old.offsets); i += 2 {
		offs = append(offs, binary.BigEndian.Uint16(old.offsets[i:]))
	}
	stored := len(offs)
	merged, added := old, false
	for _, x := range p.samples {
		if _, found := slices.BinarySearch(offs[:stored], x.off); found {
			continue // delivered before: the stored sample wins
		}
		merged.addSample(x)
		offs = append(offs, x.off)
		added = true
	}
	if !added {
		return nil
	}
	slices.Sort(offs)
	merged.offsets = make([]byte, 0, 2*len(offs))
	for _, o := range offs {
		merged.offsets = binary.BigEndian.AppendUint16(merged.offsets, o)
	}
	_, err := m.update.ExecContext(m.ctx, merged.n, merged.utilSum, merged.utilN, merged.mem, merged.powerSum,
		merged.powerN, merged.offsets, p.id, p.minute)
	return err
}

// HasSource reports whether a source with this URI was imported (any
// content). Fetchers use it not to fetch again what is already stored.
func (s *Store) HasSource(ctx context.Context, uri string) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM source_files WHERE uri = ?`, uri).Scan(&n); err != nil {
		return false, fmt.Errorf("store: look up source %s: %w", uri, err)
	}
	return n > 0, nil
}
