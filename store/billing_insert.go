package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/finops-oss/finops"
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

// billingInsert is the INSERT of rows billing lines. OR FAIL, with no
// foreign key on the table (migration 10), spares SQLite the statement
// journal it keeps for a multi-row INSERT that may have to undo itself
// halfway (a tenth of the inserter's time); a failed INSERT fails the
// import, whose transaction is rolled back whole.
func billingInsert(rows int) string {
	var b strings.Builder
	b.WriteString("INSERT OR FAIL INTO billing_lines (" + billingColumns + ") VALUES ")
	row := "(" + strings.Repeat("?,", billingArity-1) + "?)"
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(row)
	}
	return b.String()
}

// billingBatch collects the arguments of up to billingBatchRows lines.
type billingBatch struct {
	args    []any
	rows    int
	source  any      // the source id, boxed once
	keys    []string // scratch for sorting tag keys
	tagsBuf []byte   // scratch for encoding tags
}

// add appends one line's arguments; it reports whether the batch is full.
func (b *billingBatch) add(l *finops.BillingLine) bool {
	var tags any
	if len(l.Tags) > 0 {
		tags = b.tagsJSON(l.Tags)
	}
	b.args = append(b.args, b.source, l.Line, nullString(l.Provider), nullString(l.BillingAccount),
		nullString(l.SubAccount), l.ChargeStart.Unix(), l.ChargeEnd.Unix(), l.ChargeCategory,
		nullString(l.ChargeClass), nullString(l.ChargeFrequency), nullString(l.PricingCategory),
		nullString(l.PricingMode), nullString(l.CommitmentStatus), nullString(l.CommitmentID),
		nullString(l.ResourceID), nullString(l.ResourceName), nullString(l.ResourceType), nullString(l.Service),
		nullString(l.SKU), nullString(l.InstanceType), nullString(l.Region), nullString(l.GPUModel), l.GPUCount,
		decText(l.BilledCost), decText(l.EffectiveCost), decText(l.ListCost), nullString(l.Currency),
		decText(l.UsageQuantity), nullString(l.UsageUnit), tags)
	b.rows++
	return b.rows == billingBatchRows
}

func (b *billingBatch) reset() {
	clear(b.args) // drop references to the lines' strings
	b.args = b.args[:0]
	b.rows = 0
}

// flushBilling waits for the batches on their way and inserts the lines
// still waiting in the current one.
func (w *writer) flushBilling(ctx context.Context) error {
	if err := w.inserter.stop(); err != nil {
		return err
	}
	if w.lines.rows == 0 {
		return nil
	}
	_, err := w.tx.ExecContext(ctx, billingInsert(w.lines.rows), w.lines.args...)
	w.lines.reset()
	return err
}

// billingInserter runs the INSERTs of full batches on a goroutine of its
// own, so that SQLite writing one batch (a core) overlaps the parser reading
// the next rows (another core); an import of a large export takes about the
// longer of the two instead of their sum. At most inserterQueue batches wait,
// so memory stays bounded; batches are reused. The transaction is used by
// this goroutine alone until stop returns.
type billingInserter struct {
	ctx  context.Context
	stmt *sql.Stmt
	full chan []any
	free chan []any
	done chan struct{}

	mu      sync.Mutex
	err     error // the first failed INSERT
	started bool
	stopped bool
}

const inserterQueue = 2

// send hands a full batch over and returns an empty one to fill next.
func (in *billingInserter) send(args []any) []any {
	if !in.started {
		in.started = true
		in.full = make(chan []any, inserterQueue)
		in.free = make(chan []any, inserterQueue+2)
		in.done = make(chan struct{})
		go in.run()
	}
	in.full <- args
	select {
	case a := <-in.free:
		return a
	default:
		return make([]any, 0, cap(args))
	}
}

func (in *billingInserter) run() {
	defer close(in.done)
	for args := range in.full {
		if in.error() == nil {
			if _, err := in.stmt.ExecContext(in.ctx, args...); err != nil {
				in.mu.Lock()
				in.err = err
				in.mu.Unlock()
			}
		}
		clear(args) // drop the references to the lines' strings
		select {
		case in.free <- args[:0]:
		default:
		}
	}
}

// error is the first INSERT that failed, if any.
func (in *billingInserter) error() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.err
}

// stop waits until every batch sent is inserted (or refused) and returns
// the first error. It may be called more than once.
func (in *billingInserter) stop() error {
	if in.started && !in.stopped {
		in.stopped = true
		close(in.full)
		<-in.done
	}
	return in.error()
}

// tagsJSON encodes tags as a JSON object with sorted keys, byte for byte
// what encoding/json writes for a map[string]string, without its
// reflection (which cost a fifth of an import of tagged FOCUS lines).
func (b *billingBatch) tagsJSON(m map[string]string) string {
	b.keys = b.keys[:0]
	for k := range m {
		b.keys = append(b.keys, k)
	}
	slices.Sort(b.keys)
	buf := append(b.tagsBuf[:0], '{')
	for i, k := range b.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, k)
		buf = append(buf, ':')
		buf = appendJSONString(buf, m[k])
	}
	buf = append(buf, '}')
	b.tagsBuf = buf
	return string(buf)
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does: HTML-safe (<, >, & as
// \u003c …), U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
