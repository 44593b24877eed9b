package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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

// LineStream is EachLine over the lines keep accepts (nil keeps all), as a
// stream for a workbook's raw billing-lines sheet (report.LineSource): the
// whole report's lines, or one team's.
func (s *Store) LineStream(ctx context.Context, from, to time.Time, keep func(*finops.BillingLine) bool) func(yield func(*finops.BillingLine) error) error {
	return func(yield func(*finops.BillingLine) error) error {
		return s.EachLine(ctx, from, to, func(l *finops.BillingLine) error {
			if keep != nil && !keep(l) {
				return nil
			}
			return yield(l)
		})
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
		c.strs[*p] = *p
	}
}

// scan decodes one row of the billing_lines SELECT used by EachLine into l.
func (c *lineCache) scan(rows *sql.Rows, l *finops.BillingLine) error {
	var start, end int64
	var billed, effective, list, qty, tags sql.NullString
	if err := rows.Scan(&l.Line, &l.Provider, &l.BillingAccount, &l.SubAccount, &start, &end,
		&l.ChargeCategory, &l.ChargeClass, &l.ChargeFrequency, &l.PricingCategory, &l.PricingMode,
		&l.CommitmentStatus, &l.CommitmentID, &l.ResourceID, &l.ResourceName, &l.ResourceType, &l.Service,
		&l.SKU, &l.InstanceType, &l.Region, &l.GPUModel, &l.GPUCount, &billed, &effective, &list,
		&l.Currency, &qty, &l.UsageUnit, &tags); err != nil {
		return fmt.Errorf("store: stream billing lines: %w", err)
	}
	for _, p := range []*string{&l.Provider, &l.BillingAccount, &l.SubAccount, &l.ChargeCategory, &l.ChargeClass,
		&l.ChargeFrequency, &l.PricingCategory, &l.PricingMode, &l.CommitmentStatus, &l.CommitmentID,
		&l.ResourceID, &l.ResourceName, &l.ResourceType, &l.Service, &l.SKU, &l.InstanceType, &l.Region,
		&l.GPUModel, &l.Currency, &l.UsageUnit} {
		c.str(p)
	}
	l.ChargeStart, l.ChargeEnd = time.Unix(start, 0).UTC(), time.Unix(end, 0).UTC()
	for _, p := range []struct {
		src sql.NullString
		dst **decimal.Decimal
	}{{billed, &l.BilledCost}, {effective, &l.EffectiveCost}, {list, &l.ListCost}, {qty, &l.UsageQuantity}} {
		if !p.src.Valid {
			continue
		}
		if d, ok := c.decs[p.src.String]; ok {
			*p.dst = d
			continue
		}
		d, err := decimal.NewFromString(p.src.String)
		if err != nil {
			return fmt.Errorf("store: corrupt decimal %q in billing_lines: %w", p.src.String, err)
		}
		*p.dst = &d
		if len(c.decs) < lineCacheMax {
			c.decs[p.src.String] = &d
		}
	}
	if tags.Valid {
		if m, ok := c.tags[tags.String]; ok {
			l.Tags = m
			return nil
		}
		if err := json.Unmarshal([]byte(tags.String), &l.Tags); err != nil {
			return fmt.Errorf("store: corrupt tags in billing_lines: %w", err)
		}
		if len(c.tags) < lineCacheMax {
			c.tags[tags.String] = l.Tags
		}
	}
	return nil
}

// queryLines is EachLine's SELECT (TestQueryPlans checks it walks indexes).
const queryLines = `SELECT line, coalesce(provider,''), coalesce(billing_account,''),
		coalesce(sub_account,''), charge_start, charge_end, charge_category, coalesce(charge_class,''),
		coalesce(charge_frequency,''), coalesce(pricing_category,''), coalesce(pricing_mode,''),
		coalesce(commitment_status,''), coalesce(commitment_id,''), coalesce(resource_id,''),
		coalesce(resource_name,''), coalesce(resource_type,''), coalesce(service,''), coalesce(sku,''),
		coalesce(instance_type,''), coalesce(region,''), coalesce(gpu_model,''), gpu_count,
		billed_cost, effective_cost, list_cost, coalesce(currency,''), usage_quantity, coalesce(usage_unit,''), tags
		FROM billing_lines WHERE ` + overlapWhere + `
		ORDER BY charge_start, id`
