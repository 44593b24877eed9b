package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/finops-oss/finops/ingest"
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
func (s *Store) EachLine(ctx context.Context, from, to time.Time, fn func(*ingest.BillingLine) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT line, coalesce(provider,''), coalesce(billing_account,''),
		coalesce(sub_account,''), charge_start, charge_end, charge_category, coalesce(charge_class,''),
		coalesce(charge_frequency,''), coalesce(pricing_category,''), coalesce(pricing_mode,''),
		coalesce(commitment_status,''), coalesce(commitment_id,''), coalesce(resource_id,''),
		coalesce(resource_name,''), coalesce(resource_type,''), coalesce(service,''), coalesce(sku,''),
		coalesce(instance_type,''), coalesce(region,''), coalesce(gpu_model,''), gpu_count,
		billed_cost, effective_cost, list_cost, coalesce(currency,''), usage_quantity, coalesce(usage_unit,''), tags
		FROM billing_lines WHERE charge_start < ? AND (charge_end > ? OR (charge_end = charge_start AND charge_start >= ?))
		ORDER BY charge_start, id`, to.Unix(), from.Unix(), from.Unix())
	if err != nil {
		return fmt.Errorf("store: stream billing lines: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		l, err := scanLine(rows)
		if err != nil {
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

// scanLine decodes one row of the billing_lines SELECT used by EachLine (the
// same columns, in the same order, as Lines).
func scanLine(rows *sql.Rows) (*ingest.BillingLine, error) {
	l := &ingest.BillingLine{}
	var start, end int64
	var billed, effective, list, qty, tags sql.NullString
	if err := rows.Scan(&l.Line, &l.Provider, &l.BillingAccount, &l.SubAccount, &start, &end,
		&l.ChargeCategory, &l.ChargeClass, &l.ChargeFrequency, &l.PricingCategory, &l.PricingMode,
		&l.CommitmentStatus, &l.CommitmentID, &l.ResourceID, &l.ResourceName, &l.ResourceType, &l.Service,
		&l.SKU, &l.InstanceType, &l.Region, &l.GPUModel, &l.GPUCount, &billed, &effective, &list,
		&l.Currency, &qty, &l.UsageUnit, &tags); err != nil {
		return nil, fmt.Errorf("store: stream billing lines: %w", err)
	}
	l.ChargeStart, l.ChargeEnd = time.Unix(start, 0).UTC(), time.Unix(end, 0).UTC()
	for _, p := range []struct {
		src sql.NullString
		dst **decimal.Decimal
	}{{billed, &l.BilledCost}, {effective, &l.EffectiveCost}, {list, &l.ListCost}, {qty, &l.UsageQuantity}} {
		if p.src.Valid {
			d, err := decimal.NewFromString(p.src.String)
			if err != nil {
				return nil, fmt.Errorf("store: corrupt decimal %q in billing_lines: %w", p.src.String, err)
			}
			*p.dst = &d
		}
	}
	if tags.Valid {
		if err := json.Unmarshal([]byte(tags.String), &l.Tags); err != nil {
			return nil, fmt.Errorf("store: corrupt tags in billing_lines: %w", err)
		}
	}
	return l, nil
}
