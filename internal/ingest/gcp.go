package ingest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/shopspring/decimal"
)

// GCP Cloud Billing export to BigQuery, read from a CSV (columns named like
// the flattened fields: service.description or service_description) or from
// newline-delimited JSON (gcpjson.go). Both go through gcpBuilder.
//
// Cost basis: BilledCost is the row's cost; EffectiveCost is cost plus the
// sum of its credits (credits are negative: sustained and committed use
// discounts, promotions, free tier), which is what the row finally costs.
// credits, labels, system_labels and project.labels are JSON or, in koku's
// flattened CSVs, Python repr text ([{'name': …, 'amount': -5e-06, …}]).
//
// GPUs: the machine type in system_labels (compute.googleapis.com/machine_spec,
// e.g. a2-highgpu-1g) through the catalog; GPUs billed on their own SKU
// ("Nvidia Tesla A100 GPU running in Americas") by the model in the
// description and a count of GPU-seconds over the row's seconds.

// gcpFields is one record, whatever it was read from.
type gcpFields interface {
	// text returns the value of a field ("" when absent or null).
	text(name string) string
	// literal returns a nested value (lists of credits or labels): v when
	// the record decoded it already, else the text that writes it as JSON
	// or a Python literal, for gcpBuilder.literal to parse.
	literal(name string) (v any, text string)
	// bad builds the error for a field holding the wrong thing.
	bad(name, expected, value string) *ParseError
}

// gcpField names, flattened with dots as BigQuery names them.
const (
	gcpStart       = "usage_start_time"
	gcpEnd         = "usage_end_time"
	gcpCost        = "cost"
	gcpCredits     = "credits"
	gcpCurrency    = "currency"
	gcpCostType    = "cost_type"
	gcpAccount     = "billing_account_id"
	gcpProject     = "project.id"
	gcpService     = "service.description"
	gcpSKU         = "sku.description"
	gcpSKUID       = "sku.id"
	gcpRegion      = "location.region"
	gcpLocation    = "location.location"
	gcpResource    = "resource.name"
	gcpGlobalName  = "resource.global_name"
	gcpUsage       = "usage.amount"
	gcpUsageUnit   = "usage.unit"
	gcpPricingQty  = "usage.amount_in_pricing_units"
	gcpPricingUnit = "usage.pricing_unit"
	gcpListCost    = "cost_at_list"
	gcpLabels      = "labels"
	gcpSysLabels   = "system_labels"
	gcpProjLabels  = "project.labels"
)

// isGCPHeader recognises the flattened export: a cost, the usage period and
// the SKU or service.
func isGCPHeader(hdr []string) bool {
	c := newColumns(hdr, alnumLower)
	return c.col(gcpCost) >= 0 && c.col(gcpStart) >= 0 && c.col(gcpEnd) >= 0 &&
		c.col(gcpSKU, gcpService, gcpAccount) >= 0
}

type gcpBuilder struct {
	file     string
	cat      *gpu.Catalog
	in       *interner
	literals memo[any] // literal text → parsed value
}

func newGCPBuilder(opt Options) gcpBuilder {
	return gcpBuilder{file: opt.Name, cat: opt.Catalog, in: newInterner(), literals: memo[any]{}}
}

// literal reads a nested field of f, parsing its text once per distinct text.
func (b *gcpBuilder) literal(f gcpFields, name string) (any, *ParseError) {
	v, s := f.literal(name)
	if s == "" {
		return v, nil
	}
	x, ok := b.literals.of(s, func(s string) (any, bool) {
		x, err := parseLiteral(s)
		return x, err == nil
	})
	if !ok {
		return nil, f.bad(name, "a JSON or Python list like [{'key': 'team', 'value': 'ml'}]", s)
	}
	return x, nil
}

const gcpTimeExample = "a timestamp like 2020-11-09 23:00:00+00:00 or 2020-11-09 23:00:00 UTC"

func (b *gcpBuilder) build(f gcpFields, line int) (*finops.BillingLine, *ParseError) {
	start, err := parseTime(f.text(gcpStart), time.UTC)
	if err != nil {
		return nil, f.bad(gcpStart, gcpTimeExample, f.text(gcpStart))
	}
	end, err := parseTime(f.text(gcpEnd), time.UTC)
	if err != nil {
		return nil, f.bad(gcpEnd, gcpTimeExample, f.text(gcpEnd))
	}
	if end.Before(start) {
		return nil, f.bad(gcpEnd, "a usage end after the usage start "+start.Format(time.RFC3339), f.text(gcpEnd))
	}
	num := func(name string) (*decimal.Decimal, *ParseError) {
		v := f.text(name)
		if isNullNumber(v) {
			return nil, nil
		}
		d, err := parseDecimal(v)
		if err != nil {
			return nil, withRange(f.bad(name, "a decimal number like 12.34 or 5e-06", v), err, v)
		}
		return &d, nil
	}
	cost, perr := num(gcpCost)
	if perr != nil {
		return nil, perr
	}
	l := &finops.BillingLine{
		Line:           line,
		Provider:       providerGCP,
		BillingAccount: b.in.get(f.text(gcpAccount)),
		SubAccount:     b.in.get(f.text(gcpProject)),
		ChargeStart:    start,
		ChargeEnd:      end,
		ResourceID:     strings.Clone(cmp.Or(f.text(gcpGlobalName), f.text(gcpResource))),
		ResourceName:   strings.Clone(f.text(gcpResource)),
		Service:        b.in.get(f.text(gcpService)),
		SKU:            b.in.get(cmp.Or(f.text(gcpSKU), f.text(gcpSKUID))),
		Region:         b.in.get(cmp.Or(f.text(gcpRegion), f.text(gcpLocation))),
		Currency:       b.in.get(strings.ToUpper(f.text(gcpCurrency))),
		BilledCost:     cost,
	}
	if l.ListCost, perr = num(gcpListCost); perr != nil {
		return nil, perr
	}
	qtyField, unitField := gcpPricingQty, gcpPricingUnit
	if f.text(gcpPricingQty) == "" {
		qtyField, unitField = gcpUsage, gcpUsageUnit
	}
	if l.UsageQuantity, perr = num(qtyField); perr != nil {
		return nil, perr
	}
	l.UsageUnit = b.in.get(f.text(unitField))

	credits, creditTypes, perr := b.credits(f)
	if perr != nil {
		return nil, perr
	}
	l.EffectiveCost = cost
	if cost != nil && credits != nil {
		l.EffectiveCost = decPtr(cost.Add(*credits))
	} else if cost != nil {
		l.EffectiveCost = decPtr(*cost)
	}

	sku := f.text(gcpSKU)
	switch strings.ToLower(f.text(gcpCostType)) {
	case "", "regular":
		l.ChargeCategory = finops.ChargeUsage
		l.ChargeFrequency = "usage-based"
		if strings.HasPrefix(sku, "Commitment") {
			l.ChargeCategory, l.ChargeFrequency = finops.ChargePurchase, "recurring"
			l.PricingCategory, l.PricingMode = "committed", finops.ModeCommitted
		}
	case "tax":
		l.ChargeCategory = finops.ChargeTax
	case "adjustment", "rounding_error":
		l.ChargeCategory = finops.ChargeAdjustment
	default:
		l.ChargeCategory = finops.ChargeAdjustment
	}
	if l.ChargeCategory == finops.ChargeUsage {
		low := strings.ToLower(sku)
		switch {
		case strings.Contains(low, "spot") || strings.Contains(low, "preemptible"):
			l.PricingCategory, l.PricingMode = "dynamic", finops.ModeSpot
		case strings.Contains(creditTypes, "COMMITTED_USAGE_DISCOUNT"):
			l.PricingCategory, l.PricingMode = "committed", finops.ModeCommitted
		default:
			l.PricingCategory, l.PricingMode = "standard", finops.ModeHourly
		}
	}

	tags, machine, perr := b.tags(f)
	if perr != nil {
		return nil, perr
	}
	l.Tags = tags
	if l.ChargeCategory == finops.ChargeUsage {
		b.gpu(f, l, machine, sku)
	}
	return l, nil
}

// credits sums the credits of a record and lists their types.
func (b *gcpBuilder) credits(f gcpFields) (*decimal.Decimal, string, *ParseError) {
	v, perr := b.literal(f, gcpCredits)
	if perr != nil || v == nil {
		return nil, "", perr
	}
	list, ok := v.([]any)
	if !ok {
		return nil, "", f.bad(gcpCredits, "a list of credits like [{'name': …, 'amount': -1.5, 'type': …}]", f.text(gcpCredits))
	}
	var sum *decimal.Decimal
	var types []string
	for _, c := range list {
		m, ok := c.(map[string]any)
		if !ok {
			return nil, "", f.bad(gcpCredits, "a list of credits like [{'name': …, 'amount': -1.5, 'type': …}]", f.text(gcpCredits))
		}
		amt, ok := literalDecimal(m["amount"])
		if !ok {
			return nil, "", f.bad(gcpCredits, "a credit amount that is a number", fmt.Sprint(m["amount"]))
		}
		if checkAmount(amt) != nil {
			return nil, "", f.bad(gcpCredits, "a credit that is "+implausibleAmount, fmt.Sprint(m["amount"]))
		}
		sum = addDec(sum, &amt)
		if t, ok := m["type"].(string); ok {
			types = append(types, t)
		}
	}
	return sum, strings.Join(types, ","), nil
}

// literalDecimal reads a number from a parsed literal or JSON value.
func literalDecimal(v any) (decimal.Decimal, bool) {
	var s string
	switch x := v.(type) {
	case pyNumber:
		s = string(x)
	case json.Number:
		s = string(x)
	case string:
		s = x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return decimal.Decimal{}, false
		}
		return decimal.NewFromFloat(x), true
	default:
		return decimal.Decimal{}, false
	}
	d, err := parseDecimal(strings.TrimSpace(s))
	return d, err == nil
}

// tags merges project labels, resource labels and system labels (later ones
// win: a resource's own label beats its project's) and returns the machine
// type from system_labels.
func (b *gcpBuilder) tags(f gcpFields) (map[string]string, string, *ParseError) {
	var tags map[string]string
	machine := ""
	for _, name := range []string{gcpProjLabels, gcpLabels, gcpSysLabels} {
		v, perr := b.literal(f, name)
		if perr != nil {
			return nil, "", perr
		}
		kv, ok := labelPairs(v)
		if !ok {
			return nil, "", f.bad(name, "a list of labels like [{'key': 'team', 'value': 'ml'}]", f.text(name))
		}
		for _, p := range kv {
			if p[0] == "" {
				continue
			}
			if tags == nil {
				tags = map[string]string{}
			}
			tags[b.in.get(p[0])] = b.in.get(p[1])
			if p[0] == "compute.googleapis.com/machine_spec" {
				machine = p[1]
			}
		}
	}
	return tags, machine, nil
}

// labelPairs reads labels as a list of {key, value} (the export's shape) or
// an object of key → value.
func labelPairs(v any) ([][2]string, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case []any:
		out := make([][2]string, 0, len(x))
		for _, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			k, _ := m["key"].(string)
			out = append(out, [2]string{k, literalText(m["value"])})
		}
		return out, true
	case map[string]any:
		out := make([][2]string, 0, len(x))
		for k, e := range x {
			out = append(out, [2]string{k, literalText(e)})
		}
		return out, true
	}
	return nil, false
}

func literalText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case pyNumber:
		return string(x)
	case json.Number:
		return string(x)
	}
	return fmt.Sprint(v)
}

// gpu recognises GPU lines (see the file comment).
func (b *gcpBuilder) gpu(f gcpFields, l *finops.BillingLine, machine, sku string) {
	if machine != "" {
		model, n, unknown := recogniseInstance(b.cat, machine)
		l.InstanceType = b.in.get(machine)
		if model != "" {
			l.GPUModel, l.GPUCount = model, n
			return
		}
		setUnknownGPU(l, unknown)
	}
	if sku == "" || !gpu.LooksLike(sku) {
		return
	}
	model, _, ok := b.cat.GPUName(sku)
	if !ok {
		setUnknownGPU(l, sku)
		return
	}
	l.GPUModel, l.GPUCount = model, gpuCountFromUsage(f, l)
	if l.ResourceID == "" && l.ResourceName == "" {
		// The standard export names no resource: keep one GPU pool per
		// project and SKU rather than one for the whole account.
		l.ResourceName = strings.Clone(l.SubAccount + "/" + sku)
	}
}

// gpuCountFromUsage is the number of GPUs a GPU SKU row bills: GPU-seconds
// (or hours) over the row's duration, rounded up, at least 1.
func gpuCountFromUsage(f gcpFields, l *finops.BillingLine) int {
	secs := l.ChargeEnd.Sub(l.ChargeStart).Seconds()
	if secs <= 0 {
		return 1
	}
	var used float64
	if a, err := parseDecimal(f.text(gcpUsage)); err == nil && strings.HasPrefix(strings.ToLower(f.text(gcpUsageUnit)), "second") {
		used = a.InexactFloat64()
	} else if a, err := parseDecimal(f.text(gcpPricingQty)); err == nil && strings.HasPrefix(strings.ToLower(f.text(gcpPricingUnit)), "hour") {
		used = a.InexactFloat64() * 3600
	}
	n := math.Ceil(used/secs - 1e-9)
	if math.IsNaN(n) || n < 1 {
		return 1
	}
	return int(min(n, gpu.MaxPerMachine))
}

// gcpCSVParser reads the flattened CSV export.
type gcpCSVParser struct {
	b    gcpBuilder
	hdr  []string
	cols map[string]int // flattened field → column
	rec  []string
	line int
}

func newGCPCSVParser(c *columns, opt Options) (*gcpCSVParser, []string) {
	hdr := c.hdr
	p := &gcpCSVParser{b: newGCPBuilder(opt), hdr: hdr, cols: map[string]int{}}
	for _, n := range []string{gcpStart, gcpEnd, gcpCost, gcpCredits, gcpCurrency, gcpCostType, gcpAccount,
		gcpProject, gcpService, gcpSKU, gcpSKUID, gcpRegion, gcpLocation, gcpResource, gcpGlobalName, gcpUsage,
		gcpUsageUnit, gcpPricingQty, gcpPricingUnit, gcpListCost, gcpLabels, gcpSysLabels, gcpProjLabels} {
		p.cols[n] = c.col(n)
	}
	var miss []string
	for _, n := range []string{gcpStart, gcpEnd, gcpCost} {
		if p.cols[n] < 0 {
			miss = append(miss, n)
		}
	}
	return p, miss
}

func (p *gcpCSVParser) parse(rec []string, line int) (parsed, *ParseError) {
	p.rec, p.line = rec, line
	l, perr := p.b.build(p, line)
	p.rec = nil
	if perr != nil {
		return parsed{}, perr
	}
	return parsed{billing: l}, nil
}

func (p *gcpCSVParser) text(name string) string {
	i, ok := p.cols[name]
	if !ok {
		return ""
	}
	v := cell(p.rec, i)
	if isNull(v) || strings.EqualFold(v, "None") {
		return ""
	}
	return v
}

func (p *gcpCSVParser) literal(name string) (any, string) { return nil, p.text(name) }

func (p *gcpCSVParser) bad(name, expected, value string) *ParseError {
	i, ok := p.cols[name]
	if !ok {
		i = -1
	}
	return fieldErr(p.b.file, p.line, columnName(p.hdr, i), expected, value)
}
