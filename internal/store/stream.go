package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// EachLine calls fn for every billing line whose charge period overlaps
// [from, to), in the order of Lines (charge start, then import order), one row
// at a time: memory does not grow with the number of lines, so the workbook's
// raw "Billing lines" sheet can stream a month of 200,000 lines. The line is
// fn's to keep. An error from fn stops the scan and is returned as is.
//
// The query holds one read connection until EachLine returns; fn may read
// the store through other connections but must not wait on a write (WAL
// readers never block writers, but a writer waiting on fn would deadlock).
func (s *Store) EachLine(ctx context.Context, from, to time.Time, fn func(*finops.BillingLine) error) error {
	return s.scanLines(ctx, from, to, func() *finops.BillingLine { return new(finops.BillingLine) }, fn)
}

// EachLineAhead is EachLine with the lines read on a goroutine of their own,
// a few hundred ahead of fn (readAhead): the SQLite scan and decode take one
// core while fn takes the other. fn's line is reused once fn returns: fn
// copies what it keeps.
func (s *Store) EachLineAhead(ctx context.Context, from, to time.Time, fn func(*finops.BillingLine) error) error {
	return readAhead(ctx, func(ctx context.Context, yield func(*finops.BillingLine) error) error {
		return s.eachLineReused(ctx, from, to, yield)
	}, fn)
}

// eachLineReused is EachLine decoding every row into one line, zeroed
// first: readAhead copies each line into its batch, so a line allocated per
// row (EachLine's) would only be garbage (5 million of them, 2 GB, in the
// 10,000-GPU year's report).
func (s *Store) eachLineReused(ctx context.Context, from, to time.Time, fn func(*finops.BillingLine) error) error {
	var l finops.BillingLine
	return s.scanLines(ctx, from, to, func() *finops.BillingLine {
		l = finops.BillingLine{}
		return &l
	}, fn)
}

// LineStream is EachLineAhead over the lines keep accepts (nil keeps all),
// as a stream for a workbook's raw billing-lines sheet (report.LineSource):
// the whole report's lines, or one team's. keep runs on the reading
// goroutine.
func (s *Store) LineStream(ctx context.Context, from, to time.Time, keep func(*finops.BillingLine) bool) func(yield func(*finops.BillingLine) error) error {
	return func(yield func(*finops.BillingLine) error) error {
		return readAhead(ctx, func(ctx context.Context, ahead func(*finops.BillingLine) error) error {
			return s.eachLineReused(ctx, from, to, func(l *finops.BillingLine) error {
				if keep != nil && !keep(l) {
					return nil
				}
				return ahead(l)
			})
		}, yield)
	}
}

// scanLines runs EachLine's query, decoding each row into the line next
// returns, then calls fn with it.
func (s *Store) scanLines(ctx context.Context, from, to time.Time, next func() *finops.BillingLine, fn func(*finops.BillingLine) error) error {
	o, err := s.overlap(ctx, from, to)
	if err != nil {
		return fmt.Errorf("store: stream billing lines: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, queryLines, o.args()...)
	if err != nil {
		return fmt.Errorf("store: stream billing lines: %w", err)
	}
	defer rows.Close()
	c := newLineCache()
	for rows.Next() {
		l := next()
		if err := c.scan(rows, l); err != nil {
			return err
		}
		if err := fn(l); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: stream billing lines: %w", err)
	}
	return nil
}

// lineCache shares the values that repeat from line to line — providers,
// accounts, resource ids, prices, tag sets — so a report period loaded into
// memory holds each once instead of once per line (a month of 200,000 lines
// is mostly repetition). Shared values are never mutated: decimals are
// immutable and nothing writes to a loaded line's tags. Each cache is capped,
// so a period of all-distinct values costs no more than without it.
type lineCache struct {
	strs map[string]string
	decs map[string]*decimal.Decimal
	tags map[string]map[string]string
}

const lineCacheMax = 1 << 16

func newLineCache() *lineCache {
	return &lineCache{strs: map[string]string{}, decs: map[string]*decimal.Decimal{}, tags: map[string]map[string]string{}}
}

func (c *lineCache) str(p *string) {
	if v, ok := c.strs[*p]; ok {
		*p = v
	} else if len(c.strs) < lineCacheMax {
		// A copy: the field is a slice of its row's text, which the cache
		// would otherwise keep alive whole.
		v := strings.Clone(*p)
		c.strs[v] = v
		*p = v
	}
}

// The text fields of a line come from queryLines as one column, joined by
// fieldSep; nullField stands for a NULL decimal or tag set.
const (
	fieldSep   = '\x1f'
	nullField  = "\x1e"
	lineFields = 25
)

// scan decodes one row of queryLines into l.
func (c *lineCache) scan(rows *sql.Rows, l *finops.BillingLine) error {
	var start, end int64
	var text string
	if err := rows.Scan(&l.Line, &start, &end, &l.GPUCount, &text); err != nil {
		return fmt.Errorf("store: stream billing lines: %w", err)
	}
	return c.decode(l, start, end, text)
}

// decode fills l from a row's charge period and its joined text fields.
func (c *lineCache) decode(l *finops.BillingLine, start, end int64, text string) error {
	var f [lineFields]string
	n := 0
	for n < lineFields-1 {
		i := strings.IndexByte(text, fieldSep)
		if i < 0 {
			break
		}
		f[n], text = text[:i], text[i+1:]
		n++
	}
	f[n] = text
	if n != lineFields-1 || strings.IndexByte(text, fieldSep) >= 0 {
		// Ingest refuses control characters in any field, so this is a
		// database finops did not write: refused, never read shifted.
		return fmt.Errorf("store: corrupt billing line (source line %d): a field holds the separator U+001F or is missing; "+
			"export the file again and ingest it", l.Line)
	}
	strs := [...]*string{&l.Provider, &l.BillingAccount, &l.SubAccount, &l.ChargeCategory, &l.ChargeClass,
		&l.ChargeFrequency, &l.PricingCategory, &l.PricingMode, &l.CommitmentStatus, &l.CommitmentID,
		&l.ResourceID, &l.ResourceName, &l.ResourceType, &l.Service, &l.SKU, &l.InstanceType, &l.Region,
		&l.GPUModel, &l.Currency, &l.UsageUnit}
	for i, p := range strs {
		*p = f[i]
		c.str(p)
	}
	l.ChargeStart, l.ChargeEnd = time.Unix(start, 0).UTC(), time.Unix(end, 0).UTC()
	for i, dst := range [...]**decimal.Decimal{&l.BilledCost, &l.EffectiveCost, &l.ListCost, &l.UsageQuantity} {
		src := f[len(strs)+i]
		if src == nullField {
			continue
		}
		if d, ok := c.decs[src]; ok {
			*dst = d
			continue
		}
		d, err := decimal.NewFromString(src)
		if err != nil {
			return fmt.Errorf("store: corrupt decimal %q in billing_lines: %w", src, err)
		}
		*dst = &d
		if len(c.decs) < lineCacheMax {
			c.decs[strings.Clone(src)] = &d
		}
	}
	if tags := f[lineFields-1]; tags != nullField {
		if m, ok := c.tags[tags]; ok {
			l.Tags = m
			return nil
		}
		if err := json.Unmarshal([]byte(tags), &l.Tags); err != nil {
			return fmt.Errorf("store: corrupt tags in billing_lines: %w", err)
		}
		if len(c.tags) < lineCacheMax {
			c.tags[strings.Clone(tags)] = l.Tags
		}
	}
	return nil
}

// queryLines is EachLine's SELECT (TestQueryPlans checks it walks indexes).
// The text fields come as one column, joined by fieldSep, in lineCache.scan's
// order: the driver makes two calls for each column of each row (its type,
// then its text), each under the connection's mutex, and with 29 columns
// those calls were most of the time a report spent reading its lines
// (docs/BENCHMARKS.md §Reports). Ingest refuses control characters in every
// field (ingest/textcheck.go), so the separator cannot occur inside one.
const queryLines = `SELECT line, charge_start, charge_end, gpu_count, ` + lineText + `
		FROM billing_lines WHERE ` + overlapWhere + `
		ORDER BY charge_start, id`

// lineText is the joined text fields of queryLines.
const lineText = `concat_ws(char(31),
		coalesce(provider,''), coalesce(billing_account,''), coalesce(sub_account,''), charge_category,
		coalesce(charge_class,''), coalesce(charge_frequency,''), coalesce(pricing_category,''),
		coalesce(pricing_mode,''), coalesce(commitment_status,''), coalesce(commitment_id,''),
		coalesce(resource_id,''), coalesce(resource_name,''), coalesce(resource_type,''), coalesce(service,''),
		coalesce(sku,''), coalesce(instance_type,''), coalesce(region,''), coalesce(gpu_model,''),
		coalesce(currency,''), coalesce(usage_unit,''),
		coalesce(billed_cost, char(30)), coalesce(effective_cost, char(30)), coalesce(list_cost, char(30)),
		coalesce(usage_quantity, char(30)), coalesce(tags, char(30)))`
