package ingest

import (
	"encoding/json"
	"maps"
	"strings"
	"time"
	"unicode"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/shopspring/decimal"
)

const (
	focusTimeExample    = "a UTC timestamp like 2024-09-18T22:00:00Z or 2024-09-18 22:00:00"
	focusDecimalExample = "a decimal number like 12.34 or 1.5E-7 (or NULL)"
)

// focusParser reads FOCUS 1.0–1.3 rows, and 0.5 and 1.0-preview rows as
// their 1.x successors (focusversion.go). Columns are found by name, so extra
// and missing optional columns (and any order) are fine.
type focusParser struct {
	file string
	hdr  []string
	cat  *gpu.Catalog
	in   *interner

	start, end                            int
	billed, effective, list, currency     int
	category, class, frequency, pricing   int
	commitStatus, commitID                int
	provider, account, subAccount         int
	resourceID, resourceName, resourceTyp int
	service, sku, region                  int
	usageQty, usageUnit                   int
	tags, priceDetails                    int

	tagCache memo[map[string]string] // Tags cell → decoded tags
	decs     [4]decMemo              // the costs' and the quantity's cells → their decimals
	// textHits caches FindInstance over descriptive text: an export repeats
	// a few thousand descriptions, and scanning each row's was a tenth of a
	// FOCUS parse.
	textHits memo[instanceHit]

	instanceCols []int // columns that hold an instance type as such
	textCols     []int // free text that may mention one
	xCols        []int // x_* custom columns, kept in Tags

	legacy legacyFOCUS // what an older version's header says
}

// newFOCUSParser returns the parser and the required columns the header lacks.
func newFOCUSParser(idx *columns, opt Options) (*focusParser, []string) {
	hdr := idx.hdr
	if miss := missing(idx, "ChargePeriodStart", "ChargePeriodEnd", "BilledCost"); len(miss) > 0 {
		return nil, miss
	}
	p := &focusParser{
		file: opt.Name, hdr: hdr, cat: opt.Catalog, in: newInterner(), tagCache: memo[map[string]string]{},
		textHits:     memo[instanceHit]{},
		start:        idx.col("ChargePeriodStart"),
		end:          idx.col("ChargePeriodEnd"),
		billed:       idx.col("BilledCost"),
		effective:    idx.col("EffectiveCost", "AmortizedCost"),
		list:         idx.col("ListCost"),
		currency:     idx.col("BillingCurrency", "BilledCurrency"),
		category:     idx.col("ChargeCategory", "ChargeType"),
		class:        idx.col("ChargeClass"),
		frequency:    idx.col("ChargeFrequency"),
		pricing:      idx.col("PricingCategory"),
		commitStatus: idx.col("CommitmentDiscountStatus"),
		commitID:     idx.col("CommitmentDiscountId"),
		// FOCUS 1.3 renamed ProviderName to ServiceProviderName.
		// Provider, Publisher and InvoiceIssuer are the draft 0.5 names.
		provider:     idx.col("ProviderName", "ServiceProviderName", "PublisherName", "HostProviderName", "InvoiceIssuerName", "Provider", "Publisher", "InvoiceIssuer"),
		account:      idx.col("BillingAccountId"),
		subAccount:   idx.col("SubAccountId"),
		resourceID:   idx.col("ResourceId"),
		resourceName: idx.col("ResourceName"),
		resourceTyp:  idx.col("ResourceType"),
		service:      idx.col("ServiceName"),
		sku:          idx.col("SkuId"),
		region:       idx.col("RegionId", "RegionName", "Region"),
		usageQty:     idx.col("ConsumedQuantity", "UsageQuantity", "PricingQuantity"),
		usageUnit:    idx.col("ConsumedUnit", "UsageUnit", "PricingUnit"),
		tags:         idx.col("Tags"),
		priceDetails: idx.col("SkuPriceDetails"),
		legacy:       focusLegacy(idx),
	}
	for _, n := range []string{"x_InstanceType", "x_instance_type", "InstanceType", "x_ArmSkuName", "x_VmSize"} {
		if i := idx.col(n); i >= 0 {
			p.instanceCols = append(p.instanceCols, i)
		}
	}
	for _, n := range []string{"ResourceType", "SkuId", "SkuMeter", "x_UsageType", "x_SkuMeterName", "ChargeDescription"} {
		if i := idx.col(n); i >= 0 {
			p.textCols = append(p.textCols, i)
		}
	}
	xSeen := map[string]int{}
	for i, h := range hdr {
		if len(h) > 2 && strings.EqualFold(h[:2], "x_") {
			if j, twice := xSeen[h]; twice { // each is a tag of that name
				idx.noteDuplicate(j, i)
			}
			xSeen[h] = i
			p.xCols = append(p.xCols, i)
		}
	}
	return p, nil
}

func (p *focusParser) err(line, col int, expected, value string) *ParseError {
	return fieldErr(p.file, line, columnName(p.hdr, col), expected, value)
}

func (p *focusParser) text(rec []string, i int) string {
	v := cell(rec, i)
	if isNull(v) {
		return ""
	}
	return v
}

func (p *focusParser) decimal(rec []string, i, line int, m *decMemo) (*decimal.Decimal, *ParseError) {
	v := cell(rec, i)
	if isNullNumber(v) {
		return nil, nil
	}
	d, err := m.of(v)
	if err != nil {
		return nil, withRange(p.err(line, i, focusDecimalExample, v), err, v)
	}
	return d, nil
}

func (p *focusParser) time(rec []string, i, line int) (time.Time, *ParseError) {
	v := cell(rec, i)
	t, err := parseTime(v, time.UTC)
	if err != nil {
		return time.Time{}, p.err(line, i, focusTimeExample, v)
	}
	return t, nil
}

func (p *focusParser) parse(rec []string, line int) (parsed, *ParseError) {
	start, perr := p.time(rec, p.start, line)
	if perr != nil {
		return parsed{}, perr
	}
	end, perr := p.time(rec, p.end, line)
	if perr != nil {
		return parsed{}, perr
	}
	if end.Before(start) {
		return parsed{}, p.err(line, p.end, "a ChargePeriodEnd after ChargePeriodStart "+start.Format(time.RFC3339), cell(rec, p.end))
	}
	l := &finops.BillingLine{
		Line:             line,
		ChargeStart:      start,
		ChargeEnd:        end,
		Provider:         p.in.get(p.text(rec, p.provider)),
		BillingAccount:   p.in.get(p.text(rec, p.account)),
		SubAccount:       p.in.get(p.text(rec, p.subAccount)),
		ChargeCategory:   p.in.getLower(p.text(rec, p.category)),
		ChargeClass:      p.in.getLower(p.text(rec, p.class)),
		ChargeFrequency:  p.in.getLower(p.text(rec, p.frequency)),
		PricingCategory:  focusPricingCategory(p.in.getLower(p.text(rec, p.pricing))),
		CommitmentStatus: p.in.getLower(p.text(rec, p.commitStatus)),
		CommitmentID:     p.in.get(p.text(rec, p.commitID)),
		ResourceID:       strings.Clone(p.text(rec, p.resourceID)),
		ResourceName:     strings.Clone(p.text(rec, p.resourceName)),
		ResourceType:     p.in.get(p.text(rec, p.resourceTyp)),
		Service:          p.in.get(p.text(rec, p.service)),
		SKU:              p.in.get(p.text(rec, p.sku)),
		Region:           p.in.get(p.text(rec, p.region)),
		Currency:         p.in.get(strings.ToUpper(p.text(rec, p.currency))),
		UsageUnit:        p.in.get(p.text(rec, p.usageUnit)),
	}
	if p.legacy.chargeType {
		if l.ChargeCategory, perr = p.legacyCategory(rec, line); perr != nil {
			return parsed{}, perr
		}
	}
	p.applySubcategory(rec, l)
	for k, c := range []struct {
		dst **decimal.Decimal
		col int
	}{{&l.BilledCost, p.billed}, {&l.EffectiveCost, p.effective}, {&l.ListCost, p.list}, {&l.UsageQuantity, p.usageQty}} {
		if *c.dst, perr = p.decimal(rec, c.col, line, &p.decs[k]); perr != nil {
			return parsed{}, perr
		}
	}
	l.PricingMode = focusMode(l)
	if l.Tags, perr = p.tagsOf(rec, line); perr != nil {
		return parsed{}, perr
	}
	l.InstanceType, l.GPUModel, l.GPUCount = p.instance(rec)
	return parsed{billing: l}, nil
}

// focusMode derives how the resource is rented from the FOCUS columns that
// say it: dynamic pricing is spot, committed pricing a commitment, a
// recurring month-long charge a monthly rental, usage-based usage hourly.
func focusMode(l *finops.BillingLine) string {
	switch l.PricingCategory {
	case "dynamic", "spot":
		return finops.ModeSpot
	case "committed":
		return finops.ModeCommitted
	}
	if l.ChargeFrequency == "recurring" {
		if d := l.ChargeEnd.Sub(l.ChargeStart); d >= 27*24*time.Hour && d <= 32*24*time.Hour {
			return finops.ModeMonthly
		}
	}
	if l.ChargeFrequency == "usage-based" && l.ChargeCategory == finops.ChargeUsage {
		return finops.ModeHourly
	}
	return ""
}

func (p *focusParser) tagsOf(rec []string, line int) (map[string]string, *ParseError) {
	var tags map[string]string
	if v := p.text(rec, p.tags); v != "" && v != "{}" {
		// Exports repeat a few tag sets on most rows: each distinct set is
		// decoded once, and its lines share the map (BillingLine.Tags).
		m, ok := p.tagCache.of(v, parseTagsJSON)
		if !ok {
			return nil, p.err(line, p.tags, `a JSON object like {"team": "ml"} (or NULL)`, v)
		}
		tags = m
	}
	own := false // whether tags is this line's alone
	for _, i := range p.xCols {
		v := p.text(rec, i)
		if v == "" {
			continue
		}
		if !own {
			tags, own = maps.Clone(tags), true
			if tags == nil {
				tags = map[string]string{}
			}
		}
		tags[p.hdr[i]] = strings.Clone(v)
	}
	return tags, nil
}

// parseTagsJSON reads a Tags cell. Keys arrive with odd whitespace (" org")
// and values are not always strings; Azure's legacy exports drop the braces.
func parseTagsJSON(s string) (map[string]string, bool) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil || raw == nil {
		if !strings.HasPrefix(s, `"`) || json.Unmarshal([]byte("{"+s+"}"), &raw) != nil || raw == nil {
			return nil, false
		}
	}
	tags := make(map[string]string, len(raw))
	for k, v := range raw {
		k = strings.TrimFunc(k, func(r rune) bool { return unicode.IsSpace(r) || r == '\u200b' || r == '\ufeff' })
		if k == "" || string(v) == "null" {
			continue
		}
		var str string
		if json.Unmarshal(v, &str) == nil {
			tags[k] = str
		} else {
			tags[k] = string(v)
		}
	}
	return tags, true
}

// instance finds the instance type of a row: a column that holds it, then
// SkuPriceDetails, then instance-type words in descriptive text (AWS's own
// FOCUS sample names the type only in ChargeDescription: "$1.624 per On
// Demand Linux g5.4xlarge Instance Hour").
func (p *focusParser) instance(rec []string) (instanceType, model string, count int) {
	for _, i := range p.instanceCols {
		if v := p.text(rec, i); v != "" {
			m, n, _ := p.cat.Instance(v)
			return p.in.get(v), m, n
		}
	}
	if v := p.text(rec, p.priceDetails); v != "" && strings.Contains(strings.ToLower(v), "instance") {
		if t := instanceFromDetails(v); t != "" {
			m, n, _ := p.cat.Instance(t)
			return p.in.get(t), m, n
		}
	}
	for _, i := range p.textCols {
		if h := p.findInstance(p.text(rec, i)); h.ok {
			return h.typ, h.model, h.count
		}
	}
	return "", "", 0
}

// instanceFromDetails reads the instance type out of a FOCUS 1.2
// SkuPriceDetails object ({"x_InstanceType": "g5.xlarge", ...}).
func instanceFromDetails(s string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &m) != nil {
		return ""
	}
	for k, v := range m {
		key := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(strings.ToLower(k), "x_"), "_", ""))
		if key != "instancetype" {
			continue
		}
		var t string
		if json.Unmarshal(v, &t) == nil {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

type instanceHit struct {
	typ, model string
	count      int
	ok         bool
}

// findInstance is Catalog.FindInstance with a bounded cache.
func (p *focusParser) findInstance(text string) instanceHit {
	if text == "" {
		return instanceHit{}
	}
	h, _ := p.textHits.of(text, always(func(text string) instanceHit {
		t, m, n, ok := p.cat.FindInstance(text)
		return instanceHit{typ: p.in.get(t), model: m, count: n, ok: ok}
	}))
	return h
}
