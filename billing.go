package finops

import (
	"maps"
	"time"

	"github.com/shopspring/decimal"
)

// BillingLine is one FOCUS-shaped charge. Costs are exact decimals as written
// in the file; a nil cost is a null cell, never an invented zero.
type BillingLine struct {
	Line int // 1-based line number in the source file (header = 1)

	Provider       string
	BillingAccount string
	SubAccount     string

	ChargeStart time.Time // UTC, inclusive
	ChargeEnd   time.Time // UTC, exclusive

	ChargeCategory   string // ChargeUsage, ChargePurchase, ...
	ChargeClass      string // "" or "correction"
	ChargeFrequency  string // "one-time", "recurring", "usage-based" or ""
	PricingCategory  string // FOCUS PricingCategory, lower case: standard, dynamic, committed, other
	PricingMode      string // Mode* constant, or "" when unknown
	CommitmentStatus string // "used", "unused" or ""
	CommitmentID     string

	ResourceID   string
	ResourceName string
	ResourceType string
	Service      string
	SKU          string
	InstanceType string // e.g. g5.xlarge, when the source says it
	Region       string

	GPUModel string // canonical model (see GPU catalog); "" for non-GPU lines
	GPUCount int

	// The costs and the quantity may point to the same decimal as other
	// lines' (a parser decodes a repeated number cell once): never write
	// through them, give the line another pointer.
	BilledCost    *decimal.Decimal
	EffectiveCost *decimal.Decimal
	ListCost      *decimal.Decimal
	Currency      string

	UsageQuantity *decimal.Decimal
	UsageUnit     string

	// Tags may be the same map as other lines' (parsers decode each
	// distinct tag cell once, the store each distinct stored text): read
	// it, and to change a line's tags give it a copy (WithTag).
	Tags map[string]string
}

// WithTag sets the line's tag k to v on a copy of its tags, which may be
// shared with other lines.
func (l *BillingLine) WithTag(k, v string) {
	m := make(map[string]string, len(l.Tags)+1)
	maps.Copy(m, l.Tags)
	m[k] = v
	l.Tags = m
}

// Cost is the cost basis of metrics.md: EffectiveCost where present, else
// BilledCost. ok is false when both are null.
func (l *BillingLine) Cost() (c decimal.Decimal, ok bool) {
	if l.EffectiveCost != nil {
		return *l.EffectiveCost, true
	}
	if l.BilledCost != nil {
		return *l.BilledCost, true
	}
	return decimal.Zero, false
}

// IsGPUUsage reports whether the line is a GPU usage line: it enters
// per-GPU-minute rates. It is the one definition of a GPU line: ingest counts
// these (Summary.GPULines) and the report spreads these over GPU-minutes.
// Tax, credit, adjustment and purchase lines never are, and neither is a
// line with no usage: a zero-length period (there are no minutes to spread
// it over) or a usage quantity of 0; such lines are non-GPU cost.
func (l *BillingLine) IsGPUUsage() bool {
	return l.ChargeCategory == ChargeUsage && l.GPUModel != "" && l.GPUCount > 0 &&
		l.CommitmentStatus != "unused" && l.ChargeEnd.After(l.ChargeStart) &&
		(l.UsageQuantity == nil || !l.UsageQuantity.IsZero())
}
