package store

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/tagjson"
	"github.com/shopspring/decimal"
)

// billingColumns are the columns of one billing_lines row, in the order
// writer.Billing binds them.
const billingColumns = `source_id, line, provider, billing_account, sub_account,
	charge_start, charge_end, charge_category, charge_class, charge_frequency, pricing_category, pricing_mode,
	commitment_status, commitment_id, resource_id, resource_name, resource_type, service, sku, instance_type,
	region, gpu_model, gpu_count, billed_cost, effective_cost, list_cost, currency, usage_quantity, usage_unit, tags`

// billingArity is the number of billingColumns.
const billingArity = 30

// billingBatchRows is how many billing lines one INSERT statement carries.
// One statement per line spent most of an import in per-statement overhead
// (database/sql, bind, step, reset). 64 rows × 30 columns = 1,920
// parameters used less CPU than 1, 12 or 32 rows in interleaved runs of
// BenchmarkImportFOCUS.
const billingBatchRows = 64

// billingBound is the set of billingColumns an INSERT binds, bit i for
// column i. Column 0, the source id, is never bound: it is the same on
// every line of an import, so the statement carries it as a literal.
type billingBound uint32

const (
	// billingAlways are the columns bound on every line: NOT NULL (line,
	// charge_start, charge_end, charge_category, gpu_count).
	billingAlways billingBound = 1<<1 | 1<<5 | 1<<6 | 1<<7 | 1<<22
	// billingAll is every column but the source id.
	billingAll billingBound = 1<<billingArity - 2
)

// billingStatements is how many INSERTs of different shapes an import
// keeps prepared; a batch whose shape is not among them goes through a
// kept one that fits it (billingInserter.statement).
const billingStatements = 16

// billingShape is what the text of a batch's INSERT depends on: the
// columns it binds, and of those the ones whose value is the same on
// every line of the batch, bound once for all of them.
type billingShape struct {
	bound  billingBound
	shared billingBound // a subset of bound
}

// billingInsert is the INSERT of rows billing lines of source into the
// columns of shape.bound, in billingColumns order. A column it leaves out
// is NULL in every row (billingAlways holds every column that is NOT NULL
// or has another default: TestOmittedColumnsDefaultToNull reads the
// schema), so that leaving out the columns a whole batch has NULL
// (resource names, commitments, classes: often empty in an export) stores
// the rows the full INSERT stores, with fewer values bound: every bind
// takes the connection's mutex in the driver, whose bind_null costs what a
// value's does (issue #35). A column of shape.shared is one parameter for
// every row: the first row's, which every row names ($k, k its place
// among the first row's parameters), so that a value the whole batch
// shares (the provider, the account, the currency, a day's start) is
// copied and bound once instead of once a line. SQLite numbers parameters
// in the order they first appear and gives a $name the number of its first
// appearance, so the first row's parameters are 1..k in column order and
// every later row's anonymous ones follow; billingArgs lays the values out
// in that order. OR FAIL, with no foreign key on the table (migration 10),
// spares SQLite the statement journal it keeps for a multi-row INSERT that
// may have to undo itself halfway; a failed INSERT fails the import, whose
// transaction is rolled back whole.
func billingInsert(source int64, shape billingShape, rows int) string {
	names := billingColumnNames()
	var b strings.Builder
	b.WriteString("INSERT OR FAIL INTO billing_lines (" + names[0])
	row := "(" + strconv.FormatInt(source, 10)
	k := 0
	for c := 1; c < billingArity; c++ {
		if shape.bound&(1<<c) == 0 {
			continue
		}
		k++
		b.WriteString(", " + names[c])
		if shape.shared&(1<<c) != 0 {
			row += ",$" + strconv.Itoa(k)
		} else {
			row += ",?"
		}
	}
	row += ")"
	b.WriteString(") VALUES ")
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(row)
	}
	return b.String()
}

// billingArgs appends the parameters of billingInsert(shape) for the lines
// of c in order: the first line's bound columns, then each later line's
// bound columns that are not shared.
func billingArgs(args []driver.NamedValue, c *billingChunk, order []int32, shape billingShape) []driver.NamedValue {
	for i, r := range order {
		each := shape.bound
		if i > 0 {
			each &^= shape.shared
		}
		for col, v := range c.args[int(r)*billingArity : int(r+1)*billingArity] {
			if each&(1<<col) != 0 {
				args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
			}
		}
	}
	return args
}

// batchShape returns the columns the lines of c in order bind (every
// column one of them has) and the columns equal on all of them (NULL
// included; a value compared as bound: an int64, a string, or nil).
func batchShape(c *billingChunk, order []int32) (bound, same billingBound) {
	bound = billingAlways
	for _, r := range order {
		bound |= c.bound[r]
	}
	same = billingAll
	first := c.args[int(order[0])*billingArity : int(order[0]+1)*billingArity]
	for _, r := range order[1:] {
		line := c.args[int(r)*billingArity : int(r+1)*billingArity]
		// Only the columns still alike: after a few lines, a handful.
		for m := same; m != 0; m &= m - 1 {
			if col := bits.TrailingZeros32(uint32(m)); line[col] != first[col] {
				same &^= 1 << col
			}
		}
		if same == 0 {
			break
		}
	}
	return bound, same
}

// fits reports whether shape can insert a batch that binds bound and whose
// lines agree on same: it binds every column the batch has (a column more
// is bound as the NULL the lines hold), and shares only columns equal on
// every line.
func (shape billingShape) fits(bound, same billingBound) bool {
	return bound&^shape.bound == 0 && shape.shared&^same == 0
}

// fewerBinds reports whether shape binds fewer values for rows lines
// than o, or as many and sorts first (bound, then shared).
func (shape billingShape) fewerBinds(o billingShape, rows int) bool {
	if a, b := shape.binds(rows), o.binds(rows); a != b {
		return a < b
	}
	return shape.bound < o.bound || shape.bound == o.bound && shape.shared < o.shared
}

// binds is how many values shape binds for rows lines.
func (shape billingShape) binds(rows int) int {
	return bits.OnesCount32(uint32(shape.bound)) + (rows-1)*bits.OnesCount32(uint32(shape.bound&^shape.shared))
}

// billingColumnNames is billingColumns, one name each.
func billingColumnNames() []string {
	return strings.Fields(strings.ReplaceAll(billingColumns, ",", " "))
}

// billingChunkRows is how many billing lines are collected, then sorted by
// charge start, before they are inserted. Exports list lines by resource or
// in no order at all, so the keys of the charge_start and charge_end indexes
// arrived scattered: each a search from the root to another page. Sorted,
// consecutive keys go to the same pages, often after the last key, where
// SQLite appends without a search (docs/BENCHMARKS.md §Billing ingest:
// B-tree inserts 0.94 → 0.6 s, 10–15 % less CPU for the import). Ids
// follow the sorted order; the sort is stable, so lines of the same start
// keep their file order and EachLine's ORDER BY charge_start, id reads
// them as an insert in file order did.
//
// The chunks in flight (one filling, one queued, one being inserted) are
// most of an import's live heap, and at the ingest's GOGC (then 300) the heap
// grew to four times that before each collection: at 2,048 lines a 200,000
// line import peaked 1.2× higher than a 20,000-line one, which ends before
// its heap reaches that goal. 1,024 lines spend the same time in B-tree
// inserts (profiles of the 200,000 rows: 0.59/0.51 s against 0.59/0.50 s)
// and give a flatter peak: 1.07–1.14× instead of 1.13–1.21× in interleaved runs,
// though make bench's quiet run still measured 1.17× against issue #35's
// 1.15× (docs/BENCHMARKS.md §Flat memory again).
const billingChunkRows = 1024

// billingBatch collects the arguments of up to billingChunkRows lines, in
// file order.
type billingBatch struct {
	cur    *billingChunk // nil until the first line, and after a full one went to the inserter with none free
	source any           // the source id, boxed once
	tags   tagjson.Cache // the lines' tags as stored
	scopes scopeStats    // what the file's lines cover, per scope (scope.go)

	prev  [billingArity]textBox           // the previous line's text columns (box)
	boxed billingBound                    // the columns box gave the line being added
	boxFn func(int, string, bool) any     // b.box, made once: a method value allocates
	decFn func(int, *decimal.Decimal) any // b.boxDecimal, likewise
	decs  map[*decimal.Decimal]textBox    // boxDecimal's texts of the decimals lines share
}

// billingSharedValues bounds billingBatch.decs, as the parsers bound the
// decimals they share (ingest's decMemo).
const billingSharedValues = 4096

// billingChunk is the lines of one batch.
type billingChunk struct {
	args   []any          // billingArity per line, as bindArg turns appendLineArgs' values
	starts []int64        // each line's charge start
	bound  []billingBound // each line's columns that are not NULL

	// Set by ready, on the parser's goroutine: the order the lines are
	// inserted in, and each billingBatchRows of them's columns (bound) and
	// columns alike on all of them (same), batchShape's.
	order         []int32
	bounds, sames []billingBound
}

// ready sorts the chunk's lines by start and works out each batch's
// columns, before the chunk goes to the inserter: on the parser's side,
// which has the time to spare now that shared values are bound once.
func (c *billingChunk) ready() {
	c.order = sortedByStart(c.order, c.starts)
	c.bounds, c.sames = c.bounds[:0], c.sames[:0]
	for batch := range slices.Chunk(c.order, billingBatchRows) {
		bound, same := batchShape(c, batch)
		c.bounds, c.sames = append(c.bounds, bound), append(c.sames, same)
	}
}

// add appends one line's arguments; it reports whether the batch is full.
func (b *billingBatch) add(l *finops.BillingLine) bool {
	if b.cur == nil {
		b.cur = &billingChunk{args: make([]any, 0, billingChunkRows*billingArity), starts: make([]int64, 0, billingChunkRows),
			bound: make([]billingBound, 0, billingChunkRows)}
	}
	if b.boxFn == nil {
		b.boxFn, b.decFn = b.box, b.boxDecimal
	}
	b.boxed = 0
	var tags any
	if len(l.Tags) > 0 {
		tags = b.box(billingArity-1, b.tags.Of(l.Tags), true)
	}
	c, start := b.cur, l.ChargeStart.Unix()
	c.args = appendLineArgsBoxed(c.args, b.source, l, tags, b.boxFn, b.decFn)
	c.starts = append(c.starts, start)
	line := c.args[len(c.args)-billingArity:]
	b.scopes.add(l.Provider, l.BillingAccount, start, l.ChargeEnd.Unix(), contentHash(line))
	// After the hash, which is of the strings (a stored line is hashed as
	// read back, as text); a text box gave is bound as box bound it.
	var bound billingBound
	for i, v := range line {
		if v == nil {
			continue
		}
		bound |= 1 << i
		if b.boxed&(1<<i) != 0 {
			line[i] = b.prev[i].bind
		} else {
			line[i] = bindArg(v)
		}
	}
	c.bound = append(c.bound, bound&billingAll)
	return len(c.starts) == billingChunkRows
}

// bindArg is a billingColumns value as the inserter binds it. A string that
// is the canonical decimal text of an int64 (digits with no leading zero,
// "-" the only sign, not "-0": what strconv.FormatInt writes) goes as that
// int64. Every column a string goes to is TEXT (migration 1), and SQLite
// stores an integer given to a TEXT column as its decimal text: the same
// text, the same row. An integer binds without the C copy of the value,
// the unbind after the statement and the free that the driver spends on a
// text argument, on the inserter's goroutine, the import's critical path
// (issue #35). 19 % of the text values of bench/focusgen's export are such:
// account ids, SKUs, zero costs.
func bindArg(v any) any {
	s, ok := v.(string)
	if !ok || !canonicalInt(s) {
		return v
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return v // beyond int64
	}
	return n
}

// canonicalInt reports whether s is digits, perhaps after a "-", with no
// leading zero and not "-0", at most 19 digits.
func canonicalInt(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 19 || d[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// appendLineArgs appends the billingColumns of one line. The scope
// comparison (scope.go) builds the same arguments for a stored line, so that
// a line hashes alike whether it is being imported or read back.
func appendLineArgs(args []any, source any, l *finops.BillingLine, tags any) []any {
	return appendLineArgsBoxed(args, source, l, tags, boxText, boxDecimal)
}

// boxDecimal is a decimal column's value: its text, nil for a null.
func boxDecimal(_ int, d *decimal.Decimal) any { return decText(d) }

// boxText is a text column's value: nil for an empty string where the
// column is nullable.
func boxText(_ int, s string, nullable bool) any {
	if s == "" && nullable {
		return nil
	}
	return s
}

// appendLineArgsBoxed is appendLineArgs with each text column's value
// given by box(column, text, nullable) and each decimal column's by
// dec(column, decimal), which must return what boxText and boxDecimal
// return (billingBatch.box reuses the previous line's, billingBatch.boxDecimal
// the text of a decimal shared by earlier lines).
func appendLineArgsBoxed(args []any, source any, l *finops.BillingLine, tags any, box func(int, string, bool) any,
	dec func(int, *decimal.Decimal) any) []any {
	// Integers go as int64: database/sql converts an int through reflection.
	return append(args, source, int64(l.Line), box(2, l.Provider, true), box(3, l.BillingAccount, true),
		box(4, l.SubAccount, true), l.ChargeStart.Unix(), l.ChargeEnd.Unix(), box(7, l.ChargeCategory, false),
		box(8, l.ChargeClass, true), box(9, l.ChargeFrequency, true), box(10, l.PricingCategory, true),
		box(11, l.PricingMode, true), box(12, l.CommitmentStatus, true), box(13, l.CommitmentID, true),
		box(14, l.ResourceID, true), box(15, l.ResourceName, true), box(16, l.ResourceType, true), box(17, l.Service, true),
		box(18, l.SKU, true), box(19, l.InstanceType, true), box(20, l.Region, true), box(21, l.GPUModel, true), int64(l.GPUCount),
		dec(23, l.BilledCost), dec(24, l.EffectiveCost), dec(25, l.ListCost), box(26, l.Currency, true),
		dec(27, l.UsageQuantity), box(28, l.UsageUnit, true), tags)
}

// textBox is a text column's value on the previous line, boxed as an
// argument (text) and as bound (bind: bindArg's).
type textBox struct {
	s          string
	text, bind any
	dec        *decimal.Decimal // the decimal s is the text of, for a decimal column (boxDecimal)
}

// box is boxText that hands a line the previous line's boxes for a text it
// repeats: most text columns of an export repeat from one line to the next
// (the provider, the account, the category, the currency, the unit), and
// boxing each string into an interface allocated for every field of every
// line on the parser's goroutine (issue #35). boxed marks the columns it
// gave, whose bound value add takes from prev.
func (b *billingBatch) box(col int, s string, nullable bool) any {
	if s == "" && nullable {
		return nil
	}
	b.boxed |= 1 << col
	p := &b.prev[col]
	if p.text != nil && p.s == s {
		return p.text
	}
	*p = textBox{s: s, text: s}
	p.bind = bindArg(p.text)
	return p.text
}

// boxDecimal (the method) is boxDecimal that boxes the text of a decimal
// once for the lines that share it: a parser shares the decimal of a
// repeated number cell between its lines (ingest's decMemo), and
// formatting each line's costs back to text, boxed, was a twentieth of the
// parser goroutine's CPU (issue #35). A decimal is known by its pointer,
// which no one writes through (finops.BillingLine) and which the map keeps
// from being reused; lines that do not share theirs only miss. boxed marks
// the column, whose bound value add takes from prev.
func (b *billingBatch) boxDecimal(col int, d *decimal.Decimal) any {
	if d == nil {
		return nil
	}
	b.boxed |= 1 << col
	p := &b.prev[col]
	if p.dec == d { // the previous line's decimal: most lines share one column's
		return p.text
	}
	tb, ok := b.decs[d]
	if !ok {
		s := decString(*d)
		tb = textBox{s: s, text: s, dec: d}
		tb.bind = bindArg(tb.text)
		if b.decs == nil {
			b.decs = make(map[*decimal.Decimal]textBox)
		}
		if len(b.decs) < billingSharedValues {
			b.decs[d] = tb
		}
	}
	*p = tb
	return tb.text
}

// flushBilling sends the lines still waiting in the current batch and waits
// until every line sent is inserted.
func (w *writer) flushBilling() error {
	if c := w.lines.cur; c != nil && len(c.starts) > 0 {
		w.inserter.send(c)
		w.lines.cur = nil
	}
	return w.inserter.stop()
}

// billingInserter runs the INSERTs on a goroutine of its own, so that SQLite
// writing one chunk (a core) overlaps the parser reading the next rows
// (another core); an import of a large export takes about the longer of the
// two instead of their sum. At most inserterQueue chunks wait, so memory
// stays bounded; chunks are reused. database/sql serialises the import's
// connection between this goroutine (Conn.Raw, a chunk at a time) and the
// writer's statements on the transaction.
type billingInserter struct {
	ctx    context.Context
	conn   *sql.Conn // the import's, its transaction open
	source int64     // the source id of every line
	full   chan *billingChunk
	free   chan *billingChunk
	done   chan struct{}

	mu      sync.Mutex
	err     error // the first failed INSERT
	started bool
	stopped bool

	// stmts are the billingBatchRows-line INSERTs by the columns they bind,
	// at most billingStatements, prepared on the import's driver connection
	// by the first batch that needs one and kept for the others (each chunk
	// prepared its own: 0.05–0.07 s of the inserter's time over 200,000
	// lines). Only run touches them, and only inside Conn.Raw: the sql.Conn
	// holds that driver connection for the whole import.
	stmts map[billingShape]driver.Stmt
}

const inserterQueue = 1

// send makes a full chunk ready (sorted, its batches' shapes worked out)
// and hands it over; it returns an empty one to fill next, or nil when
// none is free yet.
func (in *billingInserter) send(c *billingChunk) *billingChunk {
	c.ready()
	if !in.started {
		in.started = true
		in.full = make(chan *billingChunk, inserterQueue)
		in.free = make(chan *billingChunk, inserterQueue+2)
		in.done = make(chan struct{})
		go in.run()
	}
	in.full <- c
	select {
	case c := <-in.free:
		return c
	default:
		return nil
	}
}

func (in *billingInserter) run() {
	defer close(in.done)
	args := make([]driver.NamedValue, 0, billingBatchRows*billingArity)
	for c := range in.full {
		if in.error() == nil {
			if err := in.insert(c, args); err != nil {
				in.mu.Lock()
				in.err = err
				in.mu.Unlock()
			}
		}
		clear(c.args) // drop the references to the lines' strings
		c.args, c.starts, c.bound = c.args[:0], c.starts[:0], c.bound[:0]
		select {
		case in.free <- c:
		default:
		}
	}
	if len(in.stmts) > 0 {
		_ = in.conn.Raw(func(any) error {
			for _, st := range in.stmts {
				_ = st.Close()
			}
			return nil
		})
		in.stmts = nil
	}
}

// insert writes the chunk's lines in the given order, billingBatchRows to a
// statement that binds the columns any line of the batch has (billingInsert).
// It talks to the driver's connection, within the import's transaction:
// database/sql's check and conversion of every argument (1,920 a statement)
// was a tenth of the inserter's time, and the arguments are already what
// the driver takes (int64, string, nil).
//
// Each statement runs under a context without cancellation, and the
// import's context is looked at before each instead: under a cancellable
// one the driver starts a goroutine and installs a progress handler for
// every statement, to interrupt it mid-way, and a statement of 64 rows
// ends in a fraction of a millisecond anyway (issue #35: 3,125 statements
// in an import of 200,000 lines, on the inserter's side, the longer one).
func (in *billingInserter) insert(c *billingChunk, args []driver.NamedValue) error {
	run := context.WithoutCancel(in.ctx)
	return in.conn.Raw(func(dc any) error {
		prep, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("store: the SQLite driver's connection %T cannot prepare with a context", dc)
		}
		order := c.order
		for k := 0; len(order) > 0; k++ {
			n := min(len(order), billingBatchRows)
			shape, st, done, err := in.statement(prep, c.bounds[k], c.sames[k], n)
			if err != nil {
				return err
			}
			args = billingArgs(args[:0], c, order[:n], shape)
			ex, ok := st.(driver.StmtExecContext)
			if !ok {
				done()
				return fmt.Errorf("store: the SQLite driver's statement %T cannot execute with a context", st)
			}
			if err := in.ctx.Err(); err != nil {
				done()
				return err
			}
			_, err = ex.ExecContext(run, args)
			clear(args)
			done()
			if err != nil {
				return err
			}
			order = order[n:]
		}
		return nil
	})
}

// statement returns the INSERT of a batch of n lines that binds bound and
// whose lines agree on same (batchShape), its shape, and what to call once
// it ran. A full batch's statement is kept for the next batches, up to
// billingStatements of them: its own shape's when kept or when there is
// room for it, else the kept one that fits it with the fewest values to
// bind, ties broken by shape so that a run repeats (billingAll, with
// nothing shared, fits any batch: the last place is kept for it). A
// shorter batch (a file's last lines) gets its own, closed after; a lone
// line shares nothing (a $k costs the driver a string to read).
func (in *billingInserter) statement(prep driver.ConnPrepareContext, bound, same billingBound, n int) (billingShape, driver.Stmt, func(), error) {
	shape := billingShape{bound, bound & same}
	if n == billingBatchRows {
		if st := in.stmts[shape]; st != nil {
			return shape, st, func() {}, nil
		}
		if len(in.stmts) >= billingStatements-1 {
			shape = billingShape{bound: billingAll}
			for kept := range in.stmts {
				if kept.fits(bound, same) && kept.fewerBinds(shape, n) {
					shape = kept
				}
			}
			if st := in.stmts[shape]; st != nil {
				return shape, st, func() {}, nil
			}
		}
	}
	if n == 1 {
		shape.shared = 0
	}
	st, err := prep.PrepareContext(in.ctx, billingInsert(in.source, shape, n))
	if err != nil {
		return shape, nil, nil, err
	}
	if n != billingBatchRows {
		return shape, st, func() { st.Close() }, nil
	}
	if in.stmts == nil {
		in.stmts = make(map[billingShape]driver.Stmt, billingStatements)
	}
	in.stmts[shape] = st
	return shape, st, func() {}, nil
}

// sortedByStart returns the indexes of starts in ascending order of start,
// equal starts in file order (buf is reused).
func sortedByStart(buf []int32, starts []int64) []int32 {
	buf = buf[:0]
	for i := range starts {
		buf = append(buf, int32(i))
	}
	slices.SortFunc(buf, func(a, b int32) int {
		return cmp.Or(cmp.Compare(starts[a], starts[b]), cmp.Compare(a, b))
	})
	return buf
}

// error is the first INSERT that failed, if any.
func (in *billingInserter) error() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.err
}

// stop waits until every chunk sent is inserted (or refused) and returns
// the first error. It may be called more than once.
func (in *billingInserter) stop() error {
	if in.started && !in.stopped {
		in.stopped = true
		close(in.full)
		<-in.done
	}
	return in.error()
}
