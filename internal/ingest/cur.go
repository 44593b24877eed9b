package ingest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/shopspring/decimal"
)

// curParser reads AWS Cost and Usage Reports: the legacy CSV with
// category/Name columns (lineItem/UnblendedCost, resourceTags/user:team, …),
// the same report with Athena's snake_case names (line_item_unblended_cost,
// resource_tags_user_team) and CUR 2.0 from Data Exports (snake_case with the
// map columns product, resource_tags and cost_category serialized as JSON
// text). Columns are found by name with case and punctuation ignored, so all
// three spellings meet; the schema is dynamic and any column may be missing
// except the line item type, the unblended cost and the usage period.
//
// Cost basis: BilledCost is lineItem/UnblendedCost (what the invoice sums);
// EffectiveCost is the amortized cost per line item type, the formula AWS
// documents for Cost Explorer's amortized view:
//
//	SavingsPlanCoveredUsage   savingsPlan/SavingsPlanEffectiveCost
//	SavingsPlanRecurringFee   savingsPlan/TotalCommitmentToDate − savingsPlan/UsedCommitment (the unused part)
//	SavingsPlanNegation       0 (it cancels the on-demand cost of covered usage)
//	SavingsPlanUpfrontFee     0 (amortized into covered usage)
//	DiscountedUsage           reservation/EffectiveCost
//	RIFee                     reservation/UnusedAmortizedUpfrontFeeForBillingPeriod + reservation/UnusedRecurringFee
//	Fee with a reservation    0 (an RI's upfront payment, amortized into DiscountedUsage)
//	anything else             lineItem/UnblendedCost
//
// With no-upfront commitments the effective total equals the invoice; upfront
// payments move from the month they were paid into the months they cover.
type curParser struct {
	file string
	hdr  []string
	cat  *gpu.Catalog
	in   *interner

	lineType, unblended, start, end, interval                  int
	currency, payer, account, resourceID, productCode, product int
	sku, usageType, region, zone, usageQty, unit               int
	listCost, term, marketOption                               int
	riEffective, riARN, riUnusedUpfront, riUnusedRecurring     int
	spEffective, spARN, spTotal, spUsed                        int
	instanceType                                               int
	productMap, tagMap, costCategoryMap                        int

	shortWidth int         // the field count of a row that leaves off the header's optional tail (optionalTail)
	tagCols    []curTagCol // resourceTags/… and costCategory/… columns
	mapCache   memo[mapKV] // JSON map cell → decoded
}

type curTagCol struct {
	col int
	key string
}

type mapKV = map[string]string

// curNorm is the column-name normalisation of CUR headers.
func curNorm(h string) string { return alnumLower(h) }

// isCURHeader recognises a CUR header: a line item type and an unblended cost.
func isCURHeader(idx *columns) bool {
	return idx.col("lineItem/UnblendedCost", "line_item_unblended_cost") >= 0 &&
		idx.col("lineItem/LineItemType", "line_item_line_item_type") >= 0
}

// isCUR2Header tells CUR 2.0 from the legacy report in Athena spelling by
// the columns only CUR 2.0 has: the map columns and the account names.
func isCUR2Header(idx *columns) bool {
	return idx.col("line_item_unblended_cost") >= 0 &&
		idx.col("resource_tags", "product", "cost_category", "bill_payer_account_name", "line_item_usage_account_name") >= 0
}

func newCURParser(c *columns, opt Options) (*curParser, []string) {
	hdr := c.hdr
	p := &curParser{file: opt.Name, hdr: hdr, cat: opt.Catalog, in: newInterner(),
		mapCache: memo[mapKV]{}}
	p.lineType = c.col("lineItem/LineItemType")
	p.unblended = c.col("lineItem/UnblendedCost")
	p.start = c.col("lineItem/UsageStartDate")
	p.end = c.col("lineItem/UsageEndDate")
	p.interval = c.col("identity/TimeInterval")
	var miss []string
	if p.lineType < 0 {
		miss = append(miss, "lineItem/LineItemType")
	}
	if p.unblended < 0 {
		miss = append(miss, "lineItem/UnblendedCost")
	}
	if (p.start < 0 || p.end < 0) && p.interval < 0 {
		miss = append(miss, "lineItem/UsageStartDate and lineItem/UsageEndDate (or identity/TimeInterval)")
	}
	if len(miss) > 0 {
		return nil, miss
	}
	p.currency = c.col("lineItem/CurrencyCode", "pricing/currency")
	p.payer = c.col("bill/PayerAccountId")
	p.account = c.col("lineItem/UsageAccountId")
	p.resourceID = c.col("lineItem/ResourceId")
	p.productCode = c.col("lineItem/ProductCode", "product/servicecode")
	p.product = c.col("product/ProductName")
	p.sku = c.col("product/sku")
	p.usageType = c.col("lineItem/UsageType", "product/usagetype")
	p.region = c.col("product/regionCode", "product/region")
	p.zone = c.col("lineItem/AvailabilityZone")
	p.usageQty = c.col("lineItem/UsageAmount")
	p.unit = c.col("pricing/unit")
	p.listCost = c.col("pricing/publicOnDemandCost")
	p.term = c.col("pricing/term")
	p.marketOption = c.col("product/marketoption")
	p.riEffective = c.col("reservation/EffectiveCost")
	p.riARN = c.col("reservation/ReservationARN")
	p.riUnusedUpfront = c.col("reservation/UnusedAmortizedUpfrontFeeForBillingPeriod")
	p.riUnusedRecurring = c.col("reservation/UnusedRecurringFee")
	p.spEffective = c.col("savingsPlan/SavingsPlanEffectiveCost")
	p.spARN = c.col("savingsPlan/SavingsPlanARN")
	p.spTotal = c.col("savingsPlan/TotalCommitmentToDate")
	p.spUsed = c.col("savingsPlan/UsedCommitment")
	p.instanceType = c.col("product/instanceType")
	// CUR 2.0 map columns hold what the legacy report spreads over columns.
	p.productMap = c.col("product")
	p.tagMap = c.col("resource_tags")
	p.costCategoryMap = c.col("cost_category")
	tagSeen := map[string]int{}
	for i, h := range hdr {
		if k := curTagKey(h); k != "" {
			// Tag keys are case-sensitive (user:Team and user:team are two
			// tags); two columns of one key are not.
			if j, twice := tagSeen[k]; twice {
				c.noteDuplicate(j, i)
			}
			tagSeen[k] = i
			p.tagCols = append(p.tagCols, curTagCol{col: i, key: k})
		}
	}
	p.shortWidth = optionalTail(hdr)
	return p, nil
}

// curTagKey names the tag a CUR column holds, or "" for other columns:
// resourceTags/user:team and resource_tags_user_team → team,
// resourceTags/aws:createdBy → aws:createdBy, costCategory/Team → costCategory/Team.
func curTagKey(h string) string {
	if rest, ok := cutPrefixFold(h, "resourceTags/"); ok && rest != "" {
		if k, ok := cutPrefixFold(rest, "user:"); ok && k != "" {
			return k
		}
		return rest
	}
	if rest, ok := cutPrefixFold(h, "resource_tags_"); ok && rest != "" {
		if k, ok := cutPrefixFold(rest, "user_"); ok && k != "" {
			return k
		}
		return rest
	}
	if rest, ok := cutPrefixFold(h, "costCategory/"); ok && rest != "" {
		return "costCategory/" + rest
	}
	if rest, ok := cutPrefixFold(h, "cost_category_"); ok && rest != "" {
		return "costCategory/" + rest
	}
	return ""
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// checkWidth holds CUR to the rule of every CSV format: a row has the
// header's field count, since a field lost in the middle (a value that lost
// its quotes, a cut line) shifts every column after it, money included, and
// nothing in the row tells where. The one other width a CUR row may have is
// declared by the header: when the header ends with optional columns (names
// left empty, or resourceTags/… and costCategory/… columns), a row may leave
// that whole tail off (koku's test_cur.csv: 131 names ending in
// costCategory/CostCenter, every row 130 fields). A row that stops inside the
// tail is refused: it is as likely a lost field as a cut tail. Extra cells past
// the header must be empty, as in every format.
func (p *curParser) checkWidth(file string, line int, header, rec []string) *ParseError {
	switch n := len(rec); {
	case n > len(header):
		return checkWidth(file, line, header, rec)
	case n == len(header) || n == p.shortWidth:
		return nil
	default:
		msg := fmt.Sprintf("%d fields, header has %d: a field is missing (a value lost its quotes, or the line is cut off), "+
			"so every column after it would shift; fix the line or export the report again", n, len(header))
		if p.shortWidth < len(header) {
			msg += fmt.Sprintf(" (a row may leave off the header's last %d optional columns, from %q on, but only all of them: %d fields)",
				len(header)-p.shortWidth, header[p.shortWidth], p.shortWidth)
		}
		return &ParseError{File: file, Line: line, Field: columnName(header, n), Msg: msg}
	}
}

// optionalTail is where a CUR header's trailing optional columns begin:
// columns with no name (trailing commas) and tag or cost-category columns,
// which hold nothing the cost needs. len(hdr) when the header has none.
func optionalTail(hdr []string) int {
	i := len(hdr)
	for i > 0 && (hdr[i-1] == "" || curTagKey(hdr[i-1]) != "") {
		i--
	}
	return i
}

func (p *curParser) parse(rec []string, line int) (parsed, *ParseError) {
	r := cloudRow{file: p.file, hdr: p.hdr, rec: rec, line: line}
	lineType := r.text(p.lineType)
	if lineType == "" {
		return parsed{}, r.err(p.lineType, "a line item type such as Usage, Tax or SavingsPlanCoveredUsage", cell(rec, p.lineType))
	}
	start, end, perr := p.period(&r)
	if perr != nil {
		return parsed{}, perr
	}
	unblended, perr := r.dec(p.unblended)
	if perr != nil {
		return parsed{}, perr
	}
	l := &finops.BillingLine{
		Line:           line,
		Provider:       providerAWS,
		BillingAccount: p.in.get(r.text(p.payer)),
		SubAccount:     p.in.get(r.text(p.account)),
		ChargeStart:    start,
		ChargeEnd:      end,
		ResourceID:     strings.Clone(r.text(p.resourceID)),
		Service:        p.in.get(r.text(p.product)),
		SKU:            p.in.get(cmp.Or(r.text(p.sku), r.text(p.usageType))),
		Region:         p.in.get(cmp.Or(r.text(p.region), r.text(p.zone))),
		Currency:       p.in.get(strings.ToUpper(r.text(p.currency))),
		UsageUnit:      p.in.get(r.text(p.unit)),
		BilledCost:     unblended,
	}
	if l.UsageQuantity, perr = r.dec(p.usageQty); perr != nil {
		return parsed{}, perr
	}
	if l.ListCost, perr = r.dec(p.listCost); perr != nil {
		return parsed{}, perr
	}
	var productMap mapKV
	if p.productMap >= 0 {
		if productMap, perr = p.mapCell(&r, p.productMap); perr != nil {
			return parsed{}, perr
		}
		if l.Service == "" {
			l.Service = p.in.get(productMap["product_name"])
		}
		if l.Region == "" {
			l.Region = p.in.get(cmp.Or(productMap["region_code"], productMap["region"]))
		}
	}
	if l.Service == "" {
		l.Service = p.in.get(cmp.Or(r.text(p.productCode), productMap["servicecode"]))
	}
	fallback, perr := p.classify(&r, lineType, l)
	if perr != nil {
		return parsed{}, perr
	}
	if l.Tags, perr = p.tags(&r); perr != nil {
		return parsed{}, perr
	}
	p.gpu(&r, l, lineType, productMap)
	return parsed{billing: l, fallback: fallback}, nil
}

// period reads the usage period, from the start and end columns or else from
// identity/TimeInterval ("2018-06-18T01:00:00Z/2018-06-18T02:00:00Z").
func (p *curParser) period(r *cloudRow) (start, end time.Time, perr *ParseError) {
	const example = "a UTC timestamp like 2024-09-18T22:00:00Z or 2024-09-18 22:00:00"
	if p.start >= 0 && p.end >= 0 && (r.text(p.start) != "" || p.interval < 0) {
		var err error
		if start, err = parseTime(cell(r.rec, p.start), time.UTC); err != nil {
			return start, end, r.err(p.start, example, cell(r.rec, p.start))
		}
		if end, err = parseTime(cell(r.rec, p.end), time.UTC); err != nil {
			return start, end, r.err(p.end, example, cell(r.rec, p.end))
		}
	} else {
		v := cell(r.rec, p.interval)
		a, b, ok := strings.Cut(v, "/")
		var err1, err2 error
		start, err1 = parseTime(a, time.UTC)
		end, err2 = parseTime(b, time.UTC)
		if !ok || err1 != nil || err2 != nil {
			return start, end, r.err(p.interval, "an interval like 2024-09-18T22:00:00Z/2024-09-18T23:00:00Z", v)
		}
	}
	if end.Before(start) {
		c := p.end
		if c < 0 {
			c = p.interval
		}
		return start, end, r.err(c, "a usage end after the usage start "+start.Format(time.RFC3339), cell(r.rec, c))
	}
	return start, end, nil
}

// unusedCommitment is the part of a commitment fee no usage consumed: the sum
// of the parts given (nil parts absent, nil when all are), and the line is
// marked unused when it is not zero.
func unusedCommitment(l *finops.BillingLine, parts ...*decimal.Decimal) *decimal.Decimal {
	var sum *decimal.Decimal
	for _, d := range parts {
		sum = addDec(sum, d)
	}
	if sum != nil && !sum.IsZero() {
		l.CommitmentStatus = "unused"
	}
	return sum
}

func negDec(d *decimal.Decimal) *decimal.Decimal {
	if d == nil {
		return nil
	}
	return decPtr(d.Neg())
}

// classify sets the charge category, commitment columns, pricing mode and
// effective cost from the line item type (see the type's comment). A covered
// line (SavingsPlanCoveredUsage, DiscountedUsage) whose effective-cost column
// is absent or empty keeps its unblended cost as effective cost and comes back
// as a fallback, which the file's summary counts and warns about: refusing it
// would drop real usage and its billed cost from every total, while the
// unblended cost is a known upper bound of what it cost.
func (p *curParser) classify(r *cloudRow, lineType string, l *finops.BillingLine) (*costFallback, *ParseError) {
	unblended := l.BilledCost
	zero := decPtr(decimal.Zero)
	var eff *decimal.Decimal
	var perr *ParseError
	switch lineType {
	case "Usage":
		l.ChargeCategory, l.ChargeFrequency = finops.ChargeUsage, "usage-based"
		eff = unblended
		l.PricingCategory, l.PricingMode = p.onDemandOrSpot(r)
	case "DiscountedUsage":
		l.ChargeCategory, l.ChargeFrequency = finops.ChargeUsage, "usage-based"
		l.PricingCategory, l.PricingMode, l.CommitmentStatus = "committed", finops.ModeCommitted, "used"
		l.CommitmentID = p.in.get(r.text(p.riARN))
		if eff, perr = r.money(p.riEffective); perr != nil {
			return nil, perr
		}
	case "SavingsPlanCoveredUsage":
		l.ChargeCategory, l.ChargeFrequency = finops.ChargeUsage, "usage-based"
		l.PricingCategory, l.PricingMode, l.CommitmentStatus = "committed", finops.ModeCommitted, "used"
		l.CommitmentID = p.in.get(r.text(p.spARN))
		if eff, perr = r.money(p.spEffective); perr != nil {
			return nil, perr
		}
	case "SavingsPlanNegation":
		// Cancels the on-demand cost of covered usage; its amortized cost is
		// on the covered line. Not a GPU line (the covered line is).
		l.ChargeCategory, l.ChargeFrequency = finops.ChargeUsage, "usage-based"
		l.CommitmentID = p.in.get(r.text(p.spARN))
		eff = zero
	case "SavingsPlanUpfrontFee":
		l.ChargeCategory, l.ChargeFrequency = finops.ChargePurchase, "one-time"
		l.CommitmentID = p.in.get(r.text(p.spARN))
		eff = zero
	case "SavingsPlanRecurringFee":
		l.ChargeCategory, l.ChargeFrequency = finops.ChargePurchase, "recurring"
		l.CommitmentID = p.in.get(r.text(p.spARN))
		total, perr := r.money(p.spTotal) // a missing column reads as null
		if perr != nil {
			return nil, perr
		}
		used, perr := r.money(p.spUsed)
		if perr != nil {
			return nil, perr
		}
		if total != nil {
			eff = unusedCommitment(l, total, negDec(used))
		}
	case "RIFee":
		l.ChargeCategory, l.ChargeFrequency = finops.ChargePurchase, "recurring"
		l.CommitmentID = p.in.get(r.text(p.riARN))
		upfront, perr := r.money(p.riUnusedUpfront)
		if perr != nil {
			return nil, perr
		}
		recurring, perr := r.money(p.riUnusedRecurring)
		if perr != nil {
			return nil, perr
		}
		eff = unusedCommitment(l, upfront, recurring)
	case "Fee":
		l.ChargeCategory, l.ChargeFrequency = finops.ChargePurchase, "one-time"
		eff = unblended
		if arn := r.text(p.riARN); arn != "" {
			l.CommitmentID = p.in.get(arn)
			eff = zero
		}
	case "Tax":
		l.ChargeCategory, eff = finops.ChargeTax, unblended
	case "Credit", "Refund":
		l.ChargeCategory, eff = finops.ChargeCredit, unblended
	default:
		switch {
		case strings.HasSuffix(lineType, "Discount"): // EdpDiscount, PrivateRateDiscount, BundledDiscount, …
			l.ChargeCategory = finops.ChargeCredit
		case strings.Contains(lineType, "Usage"):
			l.ChargeCategory, l.ChargeFrequency = finops.ChargeUsage, "usage-based"
		default:
			l.ChargeCategory = finops.ChargeAdjustment
		}
		eff = unblended
	}
	var fallback *costFallback
	if eff == nil {
		// The commitment column is absent or empty: fall back to the billed cost.
		eff = unblended
		switch lineType {
		case "SavingsPlanCoveredUsage":
			fallback = &costFallback{lineType: lineType, column: p.nameOf(p.spEffective, "savingsPlan/SavingsPlanEffectiveCost")}
		case "DiscountedUsage":
			fallback = &costFallback{lineType: lineType, column: p.nameOf(p.riEffective, "reservation/EffectiveCost")}
		}
	}
	l.EffectiveCost = eff
	return fallback, nil
}

// nameOf names column i as the header spells it, or by its legacy name when
// the header lacks it.
func (p *curParser) nameOf(i int, legacy string) string {
	if i >= 0 && i < len(p.hdr) {
		return p.hdr[i]
	}
	return legacy
}

// onDemandOrSpot tells spot usage (SpotUsage:…, market option Spot) from on-demand.
func (p *curParser) onDemandOrSpot(r *cloudRow) (category, mode string) {
	ut, term, market := r.text(p.usageType), r.text(p.term), r.text(p.marketOption)
	switch {
	case strings.Contains(ut, "SpotUsage") || strings.EqualFold(market, "Spot") || strings.EqualFold(term, "Spot"):
		return "dynamic", finops.ModeSpot
	case strings.EqualFold(term, "OnDemand"):
		return "standard", finops.ModeHourly
	}
	return "", ""
}

// gpu recognises the instance type of usage lines: product/instanceType (or
// CUR 2.0's product map), else the type in a *Usage:<type> usage type when
// the report has no instance-type column.
func (p *curParser) gpu(r *cloudRow, l *finops.BillingLine, lineType string, productMap mapKV) {
	it := r.text(p.instanceType)
	if it == "" && productMap != nil {
		it = cmp.Or(productMap["instance_type"], productMap["instanceType"])
	}
	if it == "" && p.instanceType < 0 && p.productMap < 0 {
		if ut := r.text(p.usageType); strings.Contains(ut, "Usage:") {
			_, t, _ := strings.Cut(ut, "Usage:")
			it = t
		}
	}
	if it == "" {
		return
	}
	l.InstanceType = p.in.get(it)
	if lineType == "SavingsPlanNegation" {
		return
	}
	model, count, unknown := recogniseInstance(p.cat, it)
	l.GPUModel, l.GPUCount = model, count
	setUnknownGPU(l, unknown)
}

// tags collects resource tags and cost categories: one column per key in the
// legacy report, JSON maps in CUR 2.0.
func (p *curParser) tags(r *cloudRow) (map[string]string, *ParseError) {
	var tags map[string]string
	put := func(k, v string) {
		if v == "" || k == "" {
			return
		}
		if tags == nil {
			tags = map[string]string{}
		}
		tags[strings.Clone(k)] = p.in.get(v)
	}
	for _, tc := range p.tagCols {
		put(tc.key, r.text(tc.col))
	}
	if p.tagMap >= 0 {
		m, perr := p.mapCell(r, p.tagMap)
		if perr != nil {
			return nil, perr
		}
		for k, v := range m {
			if u, ok := cutPrefixFold(k, "user:"); ok {
				k = u
			} else if u, ok := cutPrefixFold(k, "user_"); ok {
				k = u
			}
			put(k, v)
		}
	}
	if p.costCategoryMap >= 0 {
		m, perr := p.mapCell(r, p.costCategoryMap)
		if perr != nil {
			return nil, perr
		}
		for k, v := range m {
			put("costCategory/"+k, v)
		}
	}
	return tags, nil
}

// mapCell decodes a CUR 2.0 map column: JSON object text ({"user_team":"ml"})
// or Athena's rendering ({user_team=ml, env=prod}). Decoded maps are cached by
// cell text, as a file repeats few distinct maps.
func (p *curParser) mapCell(r *cloudRow, i int) (mapKV, *ParseError) {
	v := r.text(i)
	if v == "" || v == "{}" {
		return nil, nil
	}
	m, ok := p.mapCache.of(v, parseMapCell)
	if !ok {
		return nil, r.err(i, `a JSON object like {"user_team": "ml"} (or empty)`, v)
	}
	return m, nil
}

func parseMapCell(v string) (mapKV, bool) {
	if strings.HasPrefix(v, "{") && strings.Contains(v, `"`) {
		var raw map[string]json.RawMessage
		if json.Unmarshal([]byte(v), &raw) != nil {
			return nil, false
		}
		m := make(mapKV, len(raw))
		for k, x := range raw {
			var s string
			if json.Unmarshal(x, &s) == nil {
				m[k] = s
			} else if string(x) != "null" {
				m[k] = string(x)
			}
		}
		return m, true
	}
	inner, ok := strings.CutPrefix(v, "{")
	if !ok {
		return nil, false
	}
	inner, ok = strings.CutSuffix(inner, "}")
	if !ok {
		return nil, false
	}
	m := mapKV{}
	for kv := range strings.SplitSeq(inner, ",") {
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			if strings.TrimSpace(kv) == "" {
				continue
			}
			return nil, false
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return m, true
}
