package ingest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/shopspring/decimal"
)

// azureParser reads Azure Cost Management cost details in all four header
// families: EA (Cost, MM/DD/YYYY dates), MCA "version 2" (CostInBillingCurrency),
// camelCase (costInBillingCurrency, mixed with PascalCase in one header) and
// the legacy pay-as-you-go usage file (UsageDateTime, PreTaxCost), including
// localized headers that carry the English name in parentheses
// ("Maßeinheit (UnitOfMeasure)"). Names are matched case-insensitively.
//
// Each row is one day of one meter: the charge period is the row's date and
// the following 24 hours. The cost column goes into BilledCost where the row
// is, or may be, what the invoice charges (commitment purchases in the actual
// view, covered usage at zero), and into EffectiveCost where only the
// amortized view has it (unused reservations, covered usage with a cost,
// zero-cost purchases); rows with nothing to do with commitments carry both.
// Either way Cost() is the file's own number, so totals match the file.
//
// Actual and amortized exports of one month must never be summed. The parser
// tells them apart from the data (see costBasis) and sets Summary.Period to
// the billing scope and month and Summary.Delivery to "actual" or
// "amortized": the store replaces an earlier import of the same scope and
// month with the other basis instead of adding to it.
type azureParser struct {
	file string
	hdr  []string
	cat  *gpu.Catalog
	in   *interner

	date, cost, currency, quantity, unit                   int
	category, subCategory, meterName, meterID, meterRegion int
	resourceID, resourceName, resourceGroup, location      int
	subscription, account, tags, additional                int
	chargeType, pricingModel, frequency, reservation       int
	benefit, periodStart, product, service, payg           int

	tagCache memo[map[string]string]
	unitMemo memo[azureUnit]

	// What the rows say about the export, for the Summary.
	amortizedRows, actualRows int
	accounts, subscriptions   map[string]bool
	months                    map[string]bool
	nameHint                  string
}

// azureNorm maps a header to the English column name it stands for, lower
// case: "Kategorie der Verbrauchseinheit (MeterCategory)" → "metercategory".
func azureNorm(h string) string {
	h = strings.TrimSpace(h)
	if strings.HasSuffix(h, ")") {
		if i := strings.LastIndexByte(h, '('); i >= 0 && i < len(h)-2 {
			h = h[i+1 : len(h)-1]
		}
	}
	return strings.ToLower(strings.TrimSpace(h))
}

// azureColumns are the spellings of each field across the header families.
var azureColumns = struct {
	date, cost []string
}{
	date: []string{"Date", "UsageDateTime", "UsageDate"},
	cost: []string{"CostInBillingCurrency", "PreTaxCost", "Cost", "ExtendedCost"},
}

// isAzureHeader recognises a cost-details header: a date, a cost and meter columns.
func isAzureHeader(hdr []string) bool {
	c := newColumns(hdr, azureNorm)
	return c.col(azureColumns.date...) >= 0 && c.col(azureColumns.cost...) >= 0 &&
		c.col("MeterCategory", "MeterId", "MeterName", "ConsumedService") >= 0
}

func newAzureParser(c *columns, opt Options) (*azureParser, []string) {
	hdr := c.hdr
	p := &azureParser{file: opt.Name, hdr: hdr, cat: opt.Catalog, in: newInterner(),
		tagCache: memo[map[string]string]{}, unitMemo: memo[azureUnit]{},
		accounts: map[string]bool{}, subscriptions: map[string]bool{}, months: map[string]bool{}}
	p.date = c.col(azureColumns.date...)
	p.cost = c.col(azureColumns.cost...)
	var miss []string
	if p.date < 0 {
		miss = append(miss, "Date (or UsageDateTime)")
	}
	if p.cost < 0 {
		miss = append(miss, "CostInBillingCurrency (or Cost, PreTaxCost)")
	}
	if len(miss) > 0 {
		return nil, miss
	}
	p.currency = c.col("BillingCurrency", "BillingCurrencyCode", "Currency")
	p.quantity = c.col("Quantity", "UsageQuantity", "ConsumedQuantity")
	p.unit = c.col("UnitOfMeasure")
	p.category = c.col("MeterCategory")
	p.subCategory = c.col("MeterSubCategory")
	p.meterName = c.col("MeterName")
	p.meterID = c.col("MeterId")
	p.meterRegion = c.col("MeterRegion")
	p.resourceID = c.col("ResourceId", "InstanceId", "InstanceName")
	p.resourceName = c.col("ResourceName")
	p.resourceGroup = c.col("ResourceGroup", "ResourceGroupName")
	p.location = c.col("ResourceLocation", "Location")
	p.subscription = c.col("SubscriptionId", "SubscriptionGuid")
	p.account = c.col("BillingAccountId")
	p.tags = c.col("Tags")
	p.additional = c.col("AdditionalInfo")
	p.chargeType = c.col("ChargeType")
	p.pricingModel = c.col("PricingModel")
	p.frequency = c.col("Frequency")
	p.reservation = c.col("ReservationId")
	p.benefit = c.col("benefitId")
	p.periodStart = c.col("BillingPeriodStartDate")
	p.product = c.col("ProductName", "Product")
	p.service = c.col("ConsumedService")
	p.payg = c.col("PaygCostInBillingCurrency")
	name := strings.ToLower(path.Base(strings.ReplaceAll(opt.Name, `\`, "/")))
	switch {
	case strings.Contains(name, "amortized"):
		p.nameHint = "amortized"
	case strings.Contains(name, "actual"):
		p.nameHint = "actual"
	}
	return p, nil
}

const azureDateExample = "a date like 09/21/2023 (MM/DD/YYYY) or 2023-09-21"

// parseAzureDate reads the date shapes of Azure exports: MM/DD/YYYY (EA and
// MCA), YYYY-MM-DD and YYYY-MM-DD HH:MM:SS (legacy), DD.MM.YYYY (German
// locale), optionally followed by a time. Dates are UTC days.
func parseAzureDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := parseTime(s, time.UTC); err == nil {
		return t, nil
	}
	datePart, rest, _ := strings.Cut(s, " ")
	var sep byte
	switch {
	case strings.Count(datePart, "/") == 2:
		sep = '/'
	case strings.Count(datePart, ".") == 2:
		sep = '.'
	default:
		return time.Time{}, errNotTime
	}
	parts := strings.Split(datePart, string(sep))
	a, err1 := strconv.Atoi(parts[0])
	b, err2 := strconv.Atoi(parts[1])
	y, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || len(parts[2]) != 4 || len(parts[0]) > 2 || len(parts[1]) > 2 {
		return time.Time{}, errNotTime
	}
	month, day := a, b
	if sep == '.' {
		month, day = b, a
	}
	if y < 0 { // "-202": Atoi takes a sign that no year is written with
		return time.Time{}, errNotTime
	}
	// "09/21/2023 00:00:00", maybe with AM/PM, which no export writes for
	// dates: the time and zone are read as parseTime reads them.
	rest = strings.TrimSpace(rest)
	p := timeScanner{s: rest}
	t, _, err := p.clockOn(y, month, day, rest != "", time.UTC)
	return t, err
}

func (p *azureParser) parse(rec []string, line int) (parsed, *ParseError) {
	r := cloudRow{file: p.file, hdr: p.hdr, rec: rec, line: line}
	start, err := parseAzureDate(cell(rec, p.date))
	if err != nil {
		return parsed{}, r.err(p.date, azureDateExample, cell(rec, p.date))
	}
	end := start.Add(24 * time.Hour)
	if start.Hour() != 0 || start.Minute() != 0 || start.Second() != 0 {
		end = start.Add(time.Hour)
	}
	cost, perr := r.dec(p.cost)
	if perr != nil {
		return parsed{}, perr
	}
	qty, perr := r.dec(p.quantity)
	if perr != nil {
		return parsed{}, perr
	}
	l := &finops.BillingLine{
		Line:           line,
		Provider:       providerAzure,
		BillingAccount: p.in.get(r.text(p.account)),
		SubAccount:     p.in.get(strings.ToLower(r.text(p.subscription))),
		ChargeStart:    start,
		ChargeEnd:      end,
		ResourceID:     strings.Clone(r.text(p.resourceID)),
		ResourceName:   strings.Clone(r.text(p.resourceName)),
		Service:        p.in.get(cmp.Or(r.text(p.category), r.text(p.service))),
		SKU:            p.in.get(r.text(p.meterID)),
		Region:         p.in.get(cmp.Or(r.text(p.location), r.text(p.meterRegion))),
		Currency:       p.in.get(strings.ToUpper(r.text(p.currency))),
	}
	if l.ResourceName == "" && l.ResourceID != "" {
		l.ResourceName = strings.Clone(path.Base(l.ResourceID))
	}
	if l.ListCost, perr = r.dec(p.payg); perr != nil {
		return parsed{}, perr
	}
	u := p.unitOf(r.text(p.unit))
	l.UsageUnit = u.unit
	if qty != nil {
		l.UsageQuantity = decPtr(qty.Mul(u.factor))
	}
	p.classify(&r, l, cost)
	if l.Tags, perr = p.tagsOf(&r); perr != nil {
		return parsed{}, perr
	}
	if rg := r.text(p.resourceGroup); rg != "" {
		if _, ok := l.Tags["resource_group"]; !ok {
			l.WithTag("resource_group", p.in.get(rg))
		}
	}
	p.gpu(&r, l)
	p.note(&r, l)
	return parsed{billing: l}, nil
}

// classify maps ChargeType and PricingModel onto the FOCUS columns and puts
// the cost where it belongs (see the type's comment).
func (p *azureParser) classify(r *cloudRow, l *finops.BillingLine, cost *decimal.Decimal) {
	chargeType := strings.ToLower(r.text(p.chargeType))
	model := strings.ToLower(r.text(p.pricingModel))
	commitment := cmp.Or(r.text(p.benefit), r.text(p.reservation))
	committed := model == "reservation" || model == "savingsplan" || model == "savings plan"
	meterText := r.text(p.meterName) + " " + r.text(p.subCategory)
	switch strings.ToLower(r.text(p.frequency)) {
	case "usagebased":
		l.ChargeFrequency = "usage-based"
	case "recurring":
		l.ChargeFrequency = "recurring"
	case "onetime":
		l.ChargeFrequency = "one-time"
	}
	billed, effective := cost, cost
	switch chargeType {
	case "", "usage":
		l.ChargeCategory = finops.ChargeUsage
		if committed {
			l.PricingCategory, l.PricingMode, l.CommitmentStatus = "committed", finops.ModeCommitted, "used"
			l.CommitmentID = p.in.get(commitment)
			if cost != nil && !cost.IsZero() {
				// Only the amortized view puts a cost on covered usage.
				billed = decPtr(decimal.Zero)
				p.amortizedRows++
			} else {
				effective = nil
				p.actualRows++
			}
		} else if model == "spot" || strings.Contains(meterText, "Spot") || strings.Contains(meterText, "Low Priority") {
			l.PricingCategory, l.PricingMode = "dynamic", finops.ModeSpot
		} else {
			l.PricingCategory, l.PricingMode = "standard", finops.ModeHourly
		}
	case "unusedreservation", "unusedsavingsplan":
		l.ChargeCategory, l.CommitmentStatus, l.PricingCategory = finops.ChargeUsage, "unused", "committed"
		l.CommitmentID = p.in.get(commitment)
		billed = decPtr(decimal.Zero)
		p.amortizedRows++
	case "purchase":
		l.ChargeCategory = finops.ChargePurchase
		if committed || commitment != "" {
			l.CommitmentID = p.in.get(commitment)
			if cost != nil && !cost.IsZero() {
				// The actual-cost view charges the purchase (its covered usage
				// shows 0); the amortized share per day is not in this file.
				effective = nil
				p.actualRows++
			} else {
				billed = nil
				p.amortizedRows++
			}
		}
	case "refund":
		l.ChargeCategory, l.ChargeClass = finops.ChargePurchase, "correction"
		l.CommitmentID = p.in.get(commitment)
	case "tax":
		l.ChargeCategory = finops.ChargeTax
	case "roundingadjustment":
		l.ChargeCategory = finops.ChargeAdjustment
	case "credit":
		l.ChargeCategory = finops.ChargeCredit
	default:
		l.ChargeCategory = finops.ChargeAdjustment
	}
	if billed == effective {
		// Same cell in both: one copy each, so a later change to one never shows in the other.
		if cost != nil {
			billed, effective = decPtr(*cost), decPtr(*cost)
		}
	}
	l.BilledCost, l.EffectiveCost = billed, effective
}

// azureUnit is a parsed UnitOfMeasure: "10 Hours" is factor 10 of "Hours".
type azureUnit struct {
	factor decimal.Decimal
	unit   string
}

// unitOf splits the multiplier off a UnitOfMeasure: "10 Hours", "100 Hours",
// "1/Month", "1 GB/Month", "10K" (ten thousand), "100000000".
func (p *azureParser) unitOf(s string) azureUnit {
	u, _ := p.unitMemo.of(s, always(parseAzureUnit))
	return u
}

func parseAzureUnit(s string) azureUnit {
	one := azureUnit{factor: decimal.NewFromInt(1), unit: strings.Clone(s)}
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return one
	}
	f, err := parseDecimal(s[:i])
	if err != nil || !f.IsPositive() {
		return one
	}
	rest := s[i:]
	switch {
	case strings.HasPrefix(rest, "K") && (len(rest) == 1 || rest[1] == ' '):
		f, rest = f.Mul(decimal.NewFromInt(1000)), rest[1:]
	case strings.HasPrefix(rest, "M") && (len(rest) == 1 || rest[1] == ' '):
		f, rest = f.Mul(decimal.NewFromInt(1000000)), rest[1:]
	}
	return azureUnit{factor: f, unit: strings.TrimSpace(rest)}
}

func (p *azureParser) tagsOf(r *cloudRow) (map[string]string, *ParseError) {
	v := r.text(p.tags)
	if v == "" || v == "{}" || v == `""` {
		return nil, nil
	}
	m, ok := p.tagCache.of(v, parseTagsJSON)
	if !ok {
		return nil, r.err(p.tags, `JSON like {"team": "ml"} or "team": "ml" (or empty)`, v)
	}
	return m, nil // shared with the lines of the same cell (BillingLine.Tags)
}

// gpu recognises GPU virtual machines from the VM size in AdditionalInfo
// (ServiceType "Standard_NC24ads_A100_v4"), else from the meter name
// ("NC24ads A100 v4", "NC24ads A100 v4 Spot"), for Virtual Machines meters.
func (p *azureParser) gpu(r *cloudRow, l *finops.BillingLine) {
	if info := r.text(p.additional); info != "" {
		if m, ok := parseTagsJSON(info); ok {
			for k, v := range m {
				if strings.EqualFold(k, "ServiceType") && v != "" {
					if model, n, ok := p.cat.Instance(v); ok {
						l.InstanceType, l.GPUModel, l.GPUCount = p.in.get(v), model, n
						return
					}
					if gpu.LooksLikeInstance(strings.ToLower(v)) {
						l.InstanceType = p.in.get(v)
						setUnknownGPU(l, v)
						return
					}
				}
			}
		}
	}
	cat := r.text(p.category)
	if !strings.EqualFold(cat, "Virtual Machines") && !strings.Contains(strings.ToLower(cat), "machine learning") {
		return
	}
	meter := r.text(p.meterName)
	var unknown string
	for name := range strings.SplitSeq(meter, "/") {
		for _, size := range azureMeterSizes(name) {
			if model, n, ok := p.cat.Instance(size); ok {
				l.InstanceType, l.GPUModel, l.GPUCount = p.in.get(size), model, n
				return
			}
			if unknown == "" && gpu.LooksLikeInstance(strings.ToLower(size)) {
				unknown = meter
			}
		}
	}
	if unknown == "" && gpu.LooksLike(r.text(p.subCategory)+" "+meter) {
		unknown = strings.TrimSpace(r.text(p.subCategory) + " " + meter)
	}
	if product := r.text(p.product); unknown == "" && gpu.LooksLike(product) {
		unknown = product
	}
	setUnknownGPU(l, unknown)
}

// azureMeterSizes turns a VM meter name into the sizes it may stand for:
// "NC24ads A100 v4 Spot" → Standard_NC24ads_A100_v4; "ND96asr A100 v4" →
// Standard_ND96asr_A100_v4, then Standard_ND96asr_v4 (some meters name the
// GPU that the size does not).
func azureMeterSizes(name string) []string {
	name = strings.TrimSpace(name)
	for _, suffix := range []string{" Low Priority", " Spot"} {
		name = strings.TrimSuffix(name, suffix)
	}
	if name == "" || strings.ContainsAny(name, "()") {
		return nil
	}
	words := strings.Fields(name)
	out := []string{"Standard_" + strings.Join(words, "_")}
	var plain []string
	for _, w := range words {
		if !gpu.IsWord(strings.ToUpper(w)) {
			plain = append(plain, w)
		}
	}
	if len(plain) > 0 && len(plain) < len(words) {
		out = append(out, "Standard_"+strings.Join(plain, "_"))
	}
	return out
}

// note collects what decides the file's period key and cost basis.
func (p *azureParser) note(r *cloudRow, l *finops.BillingLine) {
	const maxKeys = 64
	if a := l.BillingAccount; a != "" && len(p.accounts) < maxKeys {
		p.accounts[a] = true
	}
	if s := l.SubAccount; s != "" && len(p.subscriptions) < maxKeys {
		p.subscriptions[s] = true
	}
	month := monthOf(l.ChargeStart)
	if v := r.text(p.periodStart); v != "" {
		if t, err := parseAzureDate(v); err == nil {
			month = monthOf(t)
		}
	}
	if len(p.months) < maxKeys {
		p.months[month] = true
	}
}

// costBasis decides whether the file is an actual-cost or an amortized-cost
// export. Amortized exports put cost on reservation- and savings-plan-covered
// usage, have UnusedReservation/UnusedSavingsPlan rows and zero-cost
// commitment purchases; actual exports charge the purchase and show covered
// usage at zero. With no commitment rows both exports hold the same numbers;
// the file name decides ("…AmortizedCost…"), else actual, the default dataset.
func (p *azureParser) costBasis() string {
	switch {
	case p.amortizedRows > 0 && p.actualRows == 0:
		return "amortized"
	case p.actualRows > 0 && p.amortizedRows == 0:
		return "actual"
	case p.nameHint != "":
		return p.nameHint
	case p.amortizedRows > p.actualRows:
		return "amortized"
	}
	return "actual"
}

// finishSummary sets the restatement key: billing scope and month, delivery
// = cost basis. The scope is the billing account (EA enrollment, MCA account)
// when the file names one, else its subscription(s) (pay-as-you-go). Two
// exports of one scope and month with the same basis are compared charge by
// charge like any two files (store/scope.go): one per subscription, holding
// no charge in common, are both kept; a later month-to-date download
// replaces the earlier. With different bases the later replaces the earlier.
// A file that spans several months or billing accounts gets no key: it
// cannot stand for one month.
func (p *azureParser) finishSummary(s *Summary) {
	if s.Rows == 0 || len(p.months) != 1 || len(p.accounts) > 1 {
		return
	}
	var month, scope string
	for m := range p.months {
		month = m
	}
	for a := range p.accounts {
		scope = a
	}
	if scope == "" {
		subs := make([]string, 0, len(p.subscriptions))
		for sub := range p.subscriptions {
			subs = append(subs, sub)
		}
		slices.Sort(subs)
		switch {
		case len(subs) == 1:
			scope = subs[0]
		case len(subs) > 1:
			h := sha256.Sum256([]byte(strings.Join(subs, ",")))
			scope = fmt.Sprintf("%d-subscriptions-%s", len(subs), hex.EncodeToString(h[:6]))
		default:
			return
		}
	}
	s.Period = "azure:" + scope + ":" + month
	s.Delivery = p.costBasis()
}
