package analysis

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/gpu"
)

// The quarterly rent-or-buy review (metrics.md §Quarterly rent-or-buy review).
//
// Per GPU model it compares what one card costs to own per month with what
// renting it costs at the utilization observed over the quarter:
//
//	owned_monthly_per_gpu = capex × (1 − residual) / (years × 12)
//	                      + power_kW × PUE × 730 × electricity_price × load
//	                      + hosting + ops
//	breakeven_utilization = owned_monthly_per_gpu / (p_h × 730)
//	observed_utilization  = active GPU-hours / (GPUs × covered hours)
//
// where capex = price per GPU + the GPU's share of the server, 730 h is the
// average month (8,760 h / 12) and the covered hours are the part of the
// quarter the data covers (a complete quarter: all of its hours, i.e. 730 h ×
// its months). Observed utilization is therefore the share of all hours a card
// was busy — the quantity an owned card is paid for, comparable with the
// breakeven. GPUs is the sum of the GPU counts of the model's resources billed
// in the quarter: the cards a purchase would replace. When rentals of a model
// did not overlap, that overstates the fleet and understates utilization, which
// errs on the side of renting.

// HoursPerMonth is the average month of the review, 8,760 h / 12.
const HoursPerMonth = 730

// DefaultMarginPoints is how many utilization points above breakeven the
// observed utilization must be before the review recommends buying.
const DefaultMarginPoints = 15

// MinReviewCoverage is the share of a quarter the data must cover before the
// review gives a verdict: two of its three months. A purchase is a multi-year
// commitment; a few weeks of data are not evidence for it.
const MinReviewCoverage = 2.0 / 3

// DefaultMinTelemetryCoverage is the share of a quarter's hours telemetry must
// have seen (TelemetryCoverage) before that quarter's utilization may support
// or veto a verdict: two thirds (metrics.md §Decided after the third review,
// "Review coverage"), so that most of what the utilization claims is
// observed rather than assumed. Below it an unmonitored hour, counted as not
// busy, could hide most of the usage: 4 hours of data must not veto a pair
// busy all of the next quarter, nor may a lower bound over 46% of the hours
// pass for a measurement.
const DefaultMinTelemetryCoverage = 2.0 / 3

// Review verdicts.
const (
	VerdictBuy              = "buy"
	VerdictKeepRenting      = "keep_renting"
	VerdictInsufficientData = "insufficient_data"       // the quarter's data is too short or has no utilization
	VerdictNoPrice          = "no_price"                // no hourly rental price: no breakeven
	VerdictNoAssumptions    = "no_purchase_assumptions" // the model is not under purchase in the config
)

// PurchaseAssumption is what buying one GPU of a model would cost. Money is in
// Currency ("" = the reporting currency); fractions are 0–1.
type PurchaseAssumption struct {
	GPUModel           string
	PricePerGPU        float64 // the card
	ServerShare        float64 // this GPU's share of the server (chassis, CPUs, memory, network)
	DepreciationYears  float64
	Residual           float64 // resale value at the end, as a fraction of the capex
	PowerWatts         float64 // rated draw of the GPU and its share of the server
	PUE                float64 // facility power usage effectiveness (≥ 1)
	ElectricityPrice   float64 // per kWh
	Load               float64 // average draw as a fraction of PowerWatts
	HostingPerGPUMonth float64 // rack space, colocation
	OpsPerGPUMonth     float64 // people, support contracts, spares
	Currency           string
	MarginPoints       *float64 // nil: DefaultMarginPoints
	// MinCoverage is the TelemetryCoverage (0–1) each quarter needs to vote;
	// nil: DefaultMinTelemetryCoverage.
	MinCoverage *float64
}

// ReviewInput is everything the review needs. The caller analyses the quarter
// (and, where it can, the quarter before) with Analyze and passes the results.
type ReviewInput struct {
	Quarter        Window  // the whole quarter in the configured zone; Label e.g. "2026Q4"
	Previous       Window  // the quarter before
	Current        *Result // Analyze over Quarter (or over its elapsed part)
	PreviousResult *Result // Analyze over Previous; nil when not loaded
	// AsOf is when the review runs; before Quarter.End the quarter is still in
	// progress and nothing after AsOf counts as covered. Zero: the quarter is over.
	AsOf      time.Time
	Purchases []PurchaseAssumption
	Prices    []Price    // the rental price catalog
	Resources []Resource // configured resources (interruptible → spot is an option)
	Params    Params     // zone, FX, release slack, spot inflation
}

// Review is the rent-or-buy review of one quarter. Utilizations are 0–100, money
// in Currency at full precision, per GPU unless a name says otherwise.
type Review struct {
	Quarter         Period        `json:"quarter"`
	PreviousQuarter Period        `json:"previous_quarter"`
	Currency        string        `json:"currency"`
	InProgress      bool          `json:"in_progress"` // the review ran before the quarter ended
	AsOf            *time.Time    `json:"as_of,omitempty"`
	Models          []ModelReview `json:"models"`
	Warnings        []string      `json:"warnings"`
}

// ModelReview is the review of one GPU model.
type ModelReview struct {
	GPUModel  string   `json:"gpu_model"`
	Resources []string `json:"resources"` // the billed resources of this model in the quarter
	GPUs      int      `json:"gpus"`      // Σ GPU counts: the cards a purchase would replace

	// Observed over the quarter.
	RentCost            float64 `json:"rent_cost"` // what the quarter's rentals cost, all GPUs
	GPUHoursBilled      float64 `json:"gpu_hours_billed"`
	GPUHoursActive      float64 `json:"gpu_hours_active"`
	GPUHoursUnmonitored float64 `json:"gpu_hours_unmonitored"`
	QuarterDays         float64 `json:"quarter_days"`
	CoveredDays         float64 `json:"covered_days"`            // first to last day with billed GPU time
	Coverage            float64 `json:"coverage"`                // covered share of the quarter, 0–1
	Months              float64 `json:"months"`                  // covered hours / 730
	ObservedUtilization float64 `json:"observed_utilization"`    // active / (GPUs × covered hours), 0–100
	ActiveHoursPerMonth float64 `json:"active_hours_per_month"`  // per GPU: observed share × 730
	CurrentMonthlyCost  float64 `json:"current_monthly_per_gpu"` // rent cost / (GPUs × months)
	// Telemetry (metrics.md §Coverage): an unmonitored GPU-hour counts as not
	// busy above, so with gaps the observed utilization is a lower bound and
	// ObservedUpperBound is what it would be had every gap been busy.
	MonitoredShare     float64 `json:"monitored_share"`         // monitored ÷ billed GPU-hours, 0–1
	TelemetryCoverage  float64 `json:"telemetry_coverage"`      // coverage × monitored_share: the quarter's hours telemetry saw, 0–1
	ObservedLowerBound bool    `json:"observed_is_lower_bound"` // some, not all, billed GPU-hours were unmonitored
	ObservedUpperBound float64 `json:"observed_upper_bound"`    // (active + unmonitored) / (GPUs × covered hours), 0–100
	ObservedText       string  `json:"observed_text"`           // e.g. "≥ 19.1% (46% of billed GPU-hours monitored)"
	// QuarterVotes: TelemetryCoverage ≥ MinTelemetryCoverage, so the
	// quarter's utilization may decide the verdict; otherwise it is
	// insufficient_data.
	QuarterVotes         bool     `json:"quarter_votes"`
	MinTelemetryCoverage float64  `json:"min_telemetry_coverage"`
	PreviousUtilization  *float64 `json:"previous_utilization"` // nil: no data for the previous quarter
	PreviousCoverage     *float64 `json:"previous_coverage"`
	// The previous quarter's telemetry, as above. PreviousVotes: it had
	// enough (PreviousTelemetryCoverage ≥ MinTelemetryCoverage) to confirm
	// or veto a buy; without it the verdict rests on this quarter alone.
	PreviousMonitoredShare    *float64 `json:"previous_monitored_share"`
	PreviousTelemetryCoverage *float64 `json:"previous_telemetry_coverage"`
	PreviousLowerBound        bool     `json:"previous_is_lower_bound"`
	PreviousVotes             bool     `json:"previous_votes"`
	PreviousText              string   `json:"previous_text"` // e.g. "8.3%; not counted: 1.1% of 2026Q2's hours monitored, 50% needed"

	// Renting.
	HourlyPrice       float64  `json:"hourly_price"` // p_h; 0 when unknown
	HourlyPriceSource string   `json:"hourly_price_source"`
	MonthlyPrice      *float64 `json:"monthly_price"`
	SpotPrice         *float64 `json:"spot_price"`  // only when all the model's resources are interruptible
	RentOption        string   `json:"rent_option"` // hourly, monthly or spot: the cheapest at the observed usage
	RentMonthlyPerGPU float64  `json:"rent_monthly_per_gpu"`

	// Owning.
	Owned                OwnedCost `json:"owned"`
	OwnedMonthlyPerGPU   float64   `json:"owned_monthly_per_gpu"`
	BreakevenUtilization float64   `json:"breakeven_utilization"` // 0–100; 0 when unknown
	MarginPoints         float64   `json:"margin_points"`
	HeadroomPoints       float64   `json:"headroom_points"` // observed − breakeven
	PaybackMonths        *float64  `json:"payback_months"`  // capex / (rent − running costs); nil: never
	MonthlySavingsPerGPU float64   `json:"monthly_savings_per_gpu"`
	MonthlySavings       float64   `json:"monthly_savings"` // × GPUs
	PurchaseCost         float64   `json:"purchase_cost"`   // capex × GPUs

	Sensitivity []Sensitivity `json:"sensitivity"`
	// AsConfigured is the sensitivity table's first row, the assumptions as
	// configured; nil without an hourly price. The JSON has these figures
	// above, so it is not written twice.
	AsConfigured *Sensitivity `json:"-"`

	Verdict    string `json:"verdict"`
	Confidence string `json:"confidence"` // high, medium, low
	Reason     string `json:"reason"`
}

// OwnedCost is the monthly cost of owning one GPU, by part, in the reporting currency.
type OwnedCost struct {
	CapexPerGPU       float64 `json:"capex_per_gpu"` // price + server share
	DepreciationYears float64 `json:"depreciation_years"`
	Residual          float64 `json:"residual"`
	Depreciation      float64 `json:"depreciation"`
	Power             float64 `json:"power"`
	Hosting           float64 `json:"hosting"`
	Ops               float64 `json:"ops"`
	Total             float64 `json:"total"`
}

// Sensitivity is the breakeven under one changed assumption.
type Sensitivity struct {
	Case                 string  `json:"case"` // e.g. "depreciation 2 years", "price −20%"
	DepreciationYears    float64 `json:"depreciation_years"`
	CapexPerGPU          float64 `json:"capex_per_gpu"`
	OwnedMonthlyPerGPU   float64 `json:"owned_monthly_per_gpu"`
	BreakevenUtilization float64 `json:"breakeven_utilization"` // 0–100
	ClearsMargin         bool    `json:"clears_margin"`         // observed ≥ this breakeven + margin
}

// purchaseTable keys the purchase assumptions by GPU model, refusing a
// model given twice (which one is meant?) or in a currency without a rate.
func purchaseTable(purchases []PurchaseAssumption, conv reviewConverter) (map[string]PurchaseAssumption, error) {
	out := map[string]PurchaseAssumption{}
	for _, a := range purchases {
		k := gpuModelKey(a.GPUModel)
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("analysis: review: purchase assumptions for %s given twice", a.GPUModel)
		}
		if _, ok := conv.rate(a.Currency); !ok {
			return nil, fmt.Errorf("analysis: review: no exchange rate from %s to %s for the purchase assumptions of %s: add fx.%s to the config",
				strings.ToUpper(a.Currency), conv.currency, a.GPUModel, strings.ToUpper(a.Currency))
		}
		out[k] = a
	}
	return out, nil
}

// RentOrBuy computes the review. It is pure: the same input gives the same review.
func RentOrBuy(in *ReviewInput) (*Review, error) {
	if in == nil || in.Current == nil {
		return nil, fmt.Errorf("analysis: review needs the quarter's analysis")
	}
	if !in.Quarter.End.After(in.Quarter.Start) {
		return nil, fmt.Errorf("analysis: review: empty quarter")
	}
	p := withDefaults(in.Params)
	cur := in.Current
	rv := &Review{
		Quarter: Period{Start: in.Quarter.Start, End: in.Quarter.End, TimeZone: p.Location.String(),
			Label: in.Quarter.Label},
		PreviousQuarter: Period{Start: in.Previous.Start, End: in.Previous.End, TimeZone: p.Location.String(),
			Label: in.Previous.Label},
		Currency: cur.Currency,
	}
	coverEnd := minTime(in.Quarter.End, cur.Period.End)
	if !in.AsOf.IsZero() {
		asOf := in.AsOf
		rv.AsOf = &asOf
		if in.AsOf.Before(in.Quarter.End) {
			rv.InProgress = true
			coverEnd = minTime(coverEnd, in.AsOf)
			rv.Warnings = append(rv.Warnings, fmt.Sprintf("%s is still in progress (it ends %s): the review covers it up to %s",
				in.Quarter.Label, in.Quarter.End.In(p.Location).Format("2006-01-02"), in.AsOf.In(p.Location).Format("2006-01-02 15:04")))
		}
	}
	conv := reviewConverter{currency: cur.Currency, fx: p.FX}

	purchases, err := purchaseTable(in.Purchases, conv)
	if err != nil {
		return nil, err
	}
	if len(in.Purchases) == 0 {
		rv.Warnings = append(rv.Warnings, "no purchase assumptions are configured: add a purchase block to the config (see finops.example.yaml)")
	}

	models := observeModels(cur, in.Quarter, coverEnd, p.Location)
	var prev map[string]*observed
	if pr := in.PreviousResult; pr != nil {
		if pr.Currency != cur.Currency && len(pr.ByResource) > 0 {
			rv.Warnings = append(rv.Warnings, fmt.Sprintf("the previous quarter is in %s, not %s: it is left out", pr.Currency, cur.Currency))
		} else {
			prev = observeModels(pr, in.Previous, minTime(in.Previous.End, pr.Period.End), p.Location)
		}
	}
	interruptible := map[string]bool{}
	for _, r := range in.Resources {
		if r.Interruptible {
			interruptible[r.ID] = true
		}
	}

	seen := map[string]bool{}
	for _, k := range sortedKeys(models) {
		o := models[k]
		seen[k] = true
		mr := o.review()
		a, ok := purchases[k]
		mr.MinTelemetryCoverage = DefaultMinTelemetryCoverage
		if ok && a.MinCoverage != nil {
			mr.MinTelemetryCoverage = *a.MinCoverage
		}
		mr.QuarterVotes = mr.TelemetryCoverage >= mr.MinTelemetryCoverage
		if po := prev[k]; po != nil && po.coveredHours > 0 {
			u, c, ms, tc := po.utilization(), po.coverage, po.monitoredShare(), po.telemetryCoverage()
			mr.PreviousUtilization, mr.PreviousCoverage = &u, &c
			mr.PreviousMonitoredShare, mr.PreviousTelemetryCoverage = &ms, &tc
			mr.PreviousLowerBound = po.lowerBound()
			mr.PreviousVotes = tc >= mr.MinTelemetryCoverage
		}
		mr.ObservedText, mr.PreviousText = mr.readings(in.Previous.Label)
		if !ok {
			mr.Verdict, mr.Confidence = VerdictNoAssumptions, "low"
			mr.Reason = fmt.Sprintf("no purchase assumptions for %s: add it under purchase in the config to review it", o.model)
			rv.Models = append(rv.Models, mr)
			continue
		}
		spot := len(o.resources) > 0
		for _, id := range o.resources {
			spot = spot && interruptible[id]
		}
		pr := rentalPrices(o, in.Prices, conv, spot, &rv.Warnings)
		judge(&mr, o, a, pr, conv, p, in.Quarter.Label, in.Previous.Label, rv.InProgress)
		rv.Models = append(rv.Models, mr)
	}
	for _, a := range in.Purchases {
		if !seen[gpuModelKey(a.GPUModel)] {
			rv.Warnings = append(rv.Warnings, fmt.Sprintf("purchase assumptions for %s match no GPU model billed in %s", a.GPUModel, in.Quarter.Label))
		}
	}
	sort.SliceStable(rv.Models, func(i, j int) bool {
		if rv.Models[i].RentCost != rv.Models[j].RentCost {
			return rv.Models[i].RentCost > rv.Models[j].RentCost
		}
		return rv.Models[i].GPUModel < rv.Models[j].GPUModel
	})
	return rv, nil
}

// gpuModelKey is what the review matches GPU models by: the model package gpu
// reads the name as, without regard to case, so purchase assumptions or a
// price written "A100-SXM4-80GB" meet the A100-80GB that was billed.
func gpuModelKey(name string) string { return strings.ToLower(gpu.Model(name)) }

// observed is one GPU model over one quarter.
type observed struct {
	model                                string
	resources                            []string
	gpus                                 int
	cost, billed, active, unmonitored    float64
	byMode                               map[string][2]float64 // pricing mode → cost, billed GPU-hours
	providers                            map[string]bool
	quarterHours, coveredHours, coverage float64
	quarterDays, coveredDays             float64
}

func (o *observed) utilization() float64 {
	if o.gpus == 0 || o.coveredHours <= 0 {
		return 0
	}
	return o.active / (float64(o.gpus) * o.coveredHours) * 100
}

// upperBound is the utilization had every unmonitored GPU-hour been busy.
func (o *observed) upperBound() float64 {
	if o.gpus == 0 || o.coveredHours <= 0 {
		return 0
	}
	return math.Min(100, (o.active+o.unmonitored)/(float64(o.gpus)*o.coveredHours)*100)
}

// lowerBound: some billed GPU-hours went unmonitored, so the utilization is
// only a lower bound; with none monitored it is unknown instead.
func (o *observed) lowerBound() bool { return o.unmonitored > 1e-9 && o.unmonitored < o.billed }

// monitoredShare is metrics.md's coverage, monitored ÷ billed GPU-hours.
func (o *observed) monitoredShare() float64 { return coverage(o.billed, o.unmonitored) }

// telemetryCoverage is the share of the quarter's hours telemetry saw: the
// covered part of the quarter times the monitored share of its billed hours.
// Unbilled hours inside the covered span count as seen (a card not rented
// was not busy); hours outside it, before the first or after the last day of
// data, do not: 4 hours of data in a day of a 91-day quarter is 1.1%.
func (o *observed) telemetryCoverage() float64 { return o.coverage * o.monitoredShare() }

func (o *observed) unmonitoredShare() float64 {
	if o.billed == 0 {
		return 0
	}
	return o.unmonitored / o.billed
}

func (o *observed) review() ModelReview {
	mr := ModelReview{
		GPUModel: o.model, Resources: o.resources, GPUs: o.gpus, RentCost: o.cost,
		GPUHoursBilled: o.billed, GPUHoursActive: o.active, GPUHoursUnmonitored: o.unmonitored,
		QuarterDays: o.quarterDays, CoveredDays: o.coveredDays, Coverage: o.coverage,
		Months: o.coveredHours / HoursPerMonth, ObservedUtilization: o.utilization(),
		MonitoredShare: o.monitoredShare(), TelemetryCoverage: o.telemetryCoverage(),
		ObservedLowerBound: o.lowerBound(), ObservedUpperBound: o.upperBound(),
	}
	mr.ActiveHoursPerMonth = mr.ObservedUtilization / 100 * HoursPerMonth
	if mr.Months > 0 && o.gpus > 0 {
		mr.CurrentMonthlyCost = o.cost / (float64(o.gpus) * mr.Months)
	}
	return mr
}

// observeModels sums a quarter's GPU resources per model (matched by
// gpuModelKey) and measures how much of the quarter the data covers: from
// the first to the last local day with billed GPU time of that model, no later
// than coverEnd.
func observeModels(r *Result, q Window, coverEnd time.Time, loc *time.Location) map[string]*observed {
	out := map[string]*observed{}
	qHours := q.End.Sub(q.Start).Hours()
	for _, rc := range r.ByResource {
		if rc.GPUModel == "" || rc.GPUHoursBilled <= 0 {
			continue
		}
		k := gpuModelKey(rc.GPUModel)
		o := out[k]
		if o == nil {
			o = &observed{model: rc.GPUModel, byMode: map[string][2]float64{}, providers: map[string]bool{},
				quarterHours: qHours, quarterDays: qHours / 24}
			out[k] = o
		}
		o.resources = append(o.resources, rc.ResourceID)
		o.gpus += rc.GPUCount
		o.cost += rc.Cost
		o.billed += rc.GPUHoursBilled
		o.active += rc.GPUHoursActive
		o.unmonitored += rc.GPUHoursUnmonitored
		m := o.byMode[rc.Pricing]
		o.byMode[rc.Pricing] = [2]float64{m[0] + rc.Cost, m[1] + rc.GPUHoursBilled}
		o.providers[strings.ToLower(rc.Provider)] = true
		// Without a daily series, a resource's own billed hours per GPU are the
		// least the data covers.
		if rc.GPUCount > 0 {
			o.coveredHours = math.Max(o.coveredHours, rc.GPUHoursBilled/float64(rc.GPUCount))
		}
	}
	first, last := map[string]time.Time{}, map[string]time.Time{}
	for _, d := range r.Daily {
		k := gpuModelKey(d.GPUModel)
		if out[k] == nil || d.Cost == 0 {
			continue
		}
		if f, ok := first[k]; !ok || d.Day.Before(f) {
			first[k] = d.Day
		}
		if l, ok := last[k]; !ok || d.Day.After(l) {
			last[k] = d.Day
		}
	}
	for k, o := range out {
		sort.Strings(o.resources)
		if f, ok := first[k]; ok {
			l := last[k].In(loc)
			end := time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, loc)
			start := maxTime(f, q.Start)
			end = minTime(minTime(end, q.End), coverEnd)
			if h := end.Sub(start).Hours(); h > 0 {
				o.coveredHours = h
			}
		}
		o.coveredHours = math.Min(o.coveredHours, qHours)
		o.coveredDays = o.coveredHours / 24
		if qHours > 0 {
			o.coverage = o.coveredHours / qHours
		}
	}
	return out
}

// rentPrices are one model's per-GPU rental prices in the reporting currency; NaN = unknown.
type rentPrices struct {
	hourly, monthly, spot float64
	hourlySource          string
}

// rentalPrices takes, per mode, the cheapest catalog price for the model (any
// provider: renting it anywhere is the alternative to buying), else the
// model's own observed rate in that mode.
func rentalPrices(o *observed, catalog []Price, conv reviewConverter, spot bool, warnings *[]string) rentPrices {
	p := rentPrices{hourly: math.NaN(), monthly: math.NaN(), spot: math.NaN()}
	set := func(dst *float64, v float64) bool {
		if math.IsNaN(*dst) || v < *dst {
			*dst = v
			return true
		}
		return false
	}
	for _, c := range catalog {
		if gpuModelKey(c.GPUModel) != gpuModelKey(o.model) {
			continue
		}
		r, ok := conv.rate(c.Currency)
		if !ok {
			*warnings = append(*warnings, fmt.Sprintf("price catalog: no exchange rate for %s (%s %s %s): the row is left out of the review",
				c.Currency, c.Provider, c.GPUModel, c.Mode))
			continue
		}
		v := c.Price * r
		switch c.Mode {
		case finops.ModeHourly:
			if set(&p.hourly, v) {
				p.hourlySource = "catalog: " + c.Provider
				if c.AsOf != "" {
					p.hourlySource += " as of " + c.AsOf
				}
			}
		case finops.ModeMonthly:
			set(&p.monthly, v)
		case finops.ModeSpot:
			set(&p.spot, v)
		}
	}
	observedRate := func(mode string) float64 {
		m := o.byMode[mode]
		if m[1] <= 0 {
			return math.NaN()
		}
		return m[0] / m[1]
	}
	if math.IsNaN(p.hourly) {
		if v := observedRate(finops.ModeHourly); !math.IsNaN(v) {
			p.hourly, p.hourlySource = v, "observed hourly rate"
		}
	}
	if math.IsNaN(p.hourly) {
		// A slice with no price of its own: its card's × its fraction,
		// said to be an estimate (docs/METRICS.md, "Slices and shared GPUs").
		p.hourly, p.hourlySource = sliceEstimate(o.model, catalog, conv)
	}
	if math.IsNaN(p.monthly) {
		p.monthly = observedRate(finops.ModeMonthly) * HoursPerMonth
	}
	if math.IsNaN(p.spot) {
		p.spot = observedRate(finops.ModeSpot)
	}
	if !spot {
		p.spot = math.NaN()
	}
	return p
}

// ownedMonthly is the monthly cost of owning one GPU at a capex and depreciation period.
func ownedMonthly(a PurchaseAssumption, r, capex, years float64) OwnedCost {
	oc := OwnedCost{CapexPerGPU: capex, DepreciationYears: years, Residual: a.Residual}
	oc.Depreciation = capex * (1 - a.Residual) / (years * 12)
	oc.Power = a.PowerWatts / 1000 * a.PUE * HoursPerMonth * a.ElectricityPrice * r * a.Load
	oc.Hosting = a.HostingPerGPUMonth * r
	oc.Ops = a.OpsPerGPUMonth * r
	oc.Total = oc.Depreciation + oc.Power + oc.Hosting + oc.Ops
	return oc
}

// judge fills the owned and rented costs, the breakeven, the sensitivity and the verdict.
func judge(mr *ModelReview, o *observed, a PurchaseAssumption, pr rentPrices, conv reviewConverter, p Params,
	quarter, previous string, inProgress bool) {
	cur := conv.currency
	r, _ := conv.rate(a.Currency)
	margin := float64(DefaultMarginPoints)
	if a.MarginPoints != nil {
		margin = *a.MarginPoints
	}
	mr.MarginPoints = margin
	capex := (a.PricePerGPU + a.ServerShare) * r
	mr.Owned = ownedMonthly(a, r, capex, a.DepreciationYears)
	mr.OwnedMonthlyPerGPU = mr.Owned.Total
	mr.PurchaseCost = capex * float64(mr.GPUs)
	if !math.IsNaN(pr.monthly) {
		v := pr.monthly
		mr.MonthlyPrice = &v
	}
	if !math.IsNaN(pr.spot) {
		v := pr.spot
		mr.SpotPrice = &v
	}
	unmon := o.unmonitoredShare()
	mr.Confidence = reviewConfidence(mr, unmon)

	if math.IsNaN(pr.hourly) || pr.hourly <= 0 {
		mr.Verdict, mr.Confidence = VerdictNoPrice, "low"
		mr.Reason = fmt.Sprintf("no hourly rental price for %s (add it under prices in the config, or rent it hourly): the breakeven cannot be computed", o.model)
		return
	}
	mr.HourlyPrice, mr.HourlyPriceSource = pr.hourly, pr.hourlySource
	full := pr.hourly * HoursPerMonth // renting hourly around the clock
	mr.BreakevenUtilization = mr.OwnedMonthlyPerGPU / full * 100
	u := mr.ObservedUtilization
	mr.HeadroomPoints = u - mr.BreakevenUtilization

	priceRenting(mr, pr, p, capex)

	need := mr.BreakevenUtilization + margin
	mr.AsConfigured = &Sensitivity{Case: "as configured", DepreciationYears: mr.Owned.DepreciationYears,
		CapexPerGPU: mr.Owned.CapexPerGPU, OwnedMonthlyPerGPU: mr.OwnedMonthlyPerGPU,
		BreakevenUtilization: mr.BreakevenUtilization, ClearsMargin: u >= need}
	addSensitivities(mr, a, r, capex, full, margin)

	j := newJudgement(mr, cur, previous, margin, full)
	if reason := j.insufficient(mr, o, quarter, inProgress); reason != "" {
		mr.Verdict, mr.Confidence, mr.Reason = VerdictInsufficientData, "low", reason
		return
	}
	mr.Verdict, mr.Reason = j.verdict(mr)
	mr.Reason += j.prevNote
	if unmon > 0.10 {
		mr.Reason += fmt.Sprintf("; %.0f%% of the billed GPU-hours were unmonitored, so the utilization is a lower bound", unmon*100)
	}
}

// priceRenting prices renting at the observed usage, the cheapest option
// of metrics.md §Recommendation, and what owning saves against it.
func priceRenting(mr *ModelReview, pr rentPrices, p Params, capex float64) {
	usage := mr.ActiveHoursPerMonth
	mr.RentOption, mr.RentMonthlyPerGPU = finops.ModeHourly, usage*pr.hourly*(1+p.ReleaseSlack)
	if !math.IsNaN(pr.monthly) && pr.monthly < mr.RentMonthlyPerGPU {
		mr.RentOption, mr.RentMonthlyPerGPU = finops.ModeMonthly, pr.monthly
	}
	if !math.IsNaN(pr.spot) {
		if v := usage * pr.spot * p.SpotInflation; v < mr.RentMonthlyPerGPU {
			mr.RentOption, mr.RentMonthlyPerGPU = finops.ModeSpot, v
		}
	}
	mr.MonthlySavingsPerGPU = mr.RentMonthlyPerGPU - mr.OwnedMonthlyPerGPU
	mr.MonthlySavings = mr.MonthlySavingsPerGPU * float64(mr.GPUs)
	if net := mr.RentMonthlyPerGPU - (mr.Owned.Power + mr.Owned.Hosting + mr.Owned.Ops); net > 0 {
		v := capex / net
		mr.PaybackMonths = &v
	}
}

// addSensitivities adds the breakeven under a year less and a year more of
// depreciation and a price 20 % lower and higher: how far the verdict
// rests on the assumptions.
func addSensitivities(mr *ModelReview, a PurchaseAssumption, r, capex, full, margin float64) {
	u := mr.ObservedUtilization
	sens := func(name string, capex, years float64) {
		oc := ownedMonthly(a, r, capex, years)
		be := oc.Total / full * 100
		mr.Sensitivity = append(mr.Sensitivity, Sensitivity{Case: name, DepreciationYears: years, CapexPerGPU: capex,
			OwnedMonthlyPerGPU: oc.Total, BreakevenUtilization: be, ClearsMargin: u >= be+margin})
	}
	y := a.DepreciationYears
	if y-1 > 0 {
		sens(fmt.Sprintf("depreciation %s years", trimNum(y-1)), capex, y-1)
	}
	sens(fmt.Sprintf("depreciation %s years", trimNum(y+1)), capex, y+1)
	sens("price −20%", capex*0.8, y)
	sens("price +20%", capex*1.2, y)
}

// judgement is what a verdict's reason quotes: the observed usage, the
// breakeven and margin, and the previous quarter when it votes.
type judgement struct {
	cur, previous         string
	u, margin, need, full float64
	busy, be              string
	prevU                 *float64 // nil when the previous quarter does not vote
	prevBound, prevNote   string
}

// newJudgement words the usage and decides whether the previous quarter
// votes: it confirms or vetoes only with enough telemetry, so a buy is
// never vetoed by a quarter with too little data (nor confirmed by one),
// and the reason says that quarter was left out.
func newJudgement(mr *ModelReview, cur, previous string, margin, full float64) judgement {
	u := mr.ObservedUtilization
	j := judgement{cur: cur, previous: previous, u: u, margin: margin, need: mr.BreakevenUtilization + margin, full: full,
		busy: fmt.Sprintf("busy %.1f%% of the hours", u), be: fmt.Sprintf("the %.1f%% breakeven", mr.BreakevenUtilization),
		prevU: mr.PreviousUtilization}
	if mr.ObservedLowerBound {
		j.busy = fmt.Sprintf("busy at least %.1f%% of the hours", u)
	}
	if j.prevU != nil && !mr.PreviousVotes {
		j.prevU = nil
		j.prevNote = "; " + notEnoughTelemetry(previous, *mr.PreviousTelemetryCoverage, mr.MinTelemetryCoverage) + " to compare"
	}
	if j.prevU != nil && mr.PreviousLowerBound {
		j.prevBound = " or more"
	}
	return j
}

// insufficient says why the data cannot judge a purchase (no telemetry,
// too few days, too little of the hours monitored); "" when it can.
func (j judgement) insufficient(mr *ModelReview, o *observed, quarter string, inProgress bool) string {
	switch {
	case o.billed > 0 && o.unmonitored >= o.billed:
		return fmt.Sprintf("no utilization data for %s in %s: a purchase cannot be judged without it", o.model, quarter)
	case mr.Coverage < MinReviewCoverage:
		why := ""
		if inProgress {
			why = " (the quarter is still in progress)"
		}
		return fmt.Sprintf("the data covers %.0f of the %.0f days of %s%s and a purchase needs at least %.0f days of evidence; so far %s it covers, against %s",
			mr.CoveredDays, mr.QuarterDays, quarter, why, math.Ceil(mr.QuarterDays*MinReviewCoverage), j.busy, j.be)
	case !mr.QuarterVotes:
		// The observed utilization is only a lower bound over too few of
		// the hours: it can neither support a purchase nor rule one out.
		monitored := "" // the same figure as the quarter's hours when the data covers all of it
		if shareText(mr.MonitoredShare) != shareText(mr.TelemetryCoverage) {
			monitored = " (" + shareText(mr.MonitoredShare) + " of the billed GPU-hours monitored)"
		}
		return fmt.Sprintf("%s to judge: busy between %.1f%% and %.1f%% of the hours%s, against %s and the %.1f%% a purchase needs",
			notEnoughTelemetry(quarter, mr.TelemetryCoverage, mr.MinTelemetryCoverage), j.u, mr.ObservedUpperBound, monitored, j.be, j.need)
	}
	return ""
}

// verdict is keep renting, with the first reason that holds, or buy when
// none does.
func (j judgement) verdict(mr *ModelReview) (string, string) {
	cur, u, be := j.cur, j.u, j.be
	owning := fmt.Sprintf("owning costs %s/GPU-month", amount.Rounded(cur, mr.OwnedMonthlyPerGPU))
	switch {
	case mr.BreakevenUtilization >= 100:
		return VerdictKeepRenting, fmt.Sprintf("%s, more than renting hourly around the clock (%s): keep renting", owning, amount.Rounded(cur, j.full))
	case u < mr.BreakevenUtilization:
		return VerdictKeepRenting, fmt.Sprintf("%s, below %s: renting %s costs %s/GPU-month at this usage and %s",
			j.busy, be, mr.RentOption, amount.Rounded(cur, mr.RentMonthlyPerGPU), owning)
	case u < j.need:
		return VerdictKeepRenting, fmt.Sprintf("%s, %.1f points above %s but short of the %s-point margin: keep renting and review next quarter",
			j.busy, mr.HeadroomPoints, be, trimNum(j.margin))
	case j.prevU != nil && *j.prevU < mr.BreakevenUtilization:
		return VerdictKeepRenting, fmt.Sprintf("%s, but only %.1f%%%s in %s, below %s: keep renting until the usage holds for two quarters",
			j.busy, *j.prevU, j.prevBound, j.previous, be)
	case j.prevU != nil && *j.prevU < j.need:
		return VerdictKeepRenting, fmt.Sprintf("%s, but %.1f%%%s in %s, short of %s plus the %s-point margin: keep renting until the usage holds for two quarters",
			j.busy, *j.prevU, j.prevBound, j.previous, be, trimNum(j.margin))
	case mr.MonthlySavingsPerGPU <= 0:
		return VerdictKeepRenting, fmt.Sprintf("%s, above %s plus the margin, but renting %s at %s/GPU-month is cheaper than owning (%s/GPU-month): keep renting",
			j.busy, be, mr.RentOption, amount.Rounded(cur, mr.RentMonthlyPerGPU), amount.Rounded(cur, mr.OwnedMonthlyPerGPU))
	}
	prevText := ""
	if j.prevU != nil {
		prevText = fmt.Sprintf(" (%.1f%%%s in %s)", *j.prevU, j.prevBound, j.previous)
	}
	payback := "never pays back"
	if mr.PaybackMonths != nil {
		payback = fmt.Sprintf("pays back in %.1f months", *mr.PaybackMonths)
	}
	return VerdictBuy, fmt.Sprintf("%s%s, %.1f points above %s (margin %s): owning at %s/GPU-month instead of renting %s at %s saves %s/GPU-month; the purchase %s",
		j.busy, prevText, mr.HeadroomPoints, be, trimNum(j.margin), amount.Rounded(cur, mr.OwnedMonthlyPerGPU), mr.RentOption,
		amount.Rounded(cur, mr.RentMonthlyPerGPU), amount.Rounded(cur, mr.MonthlySavingsPerGPU), payback)
}

// notEnoughTelemetry says why a quarter's utilization does not vote, e.g.
// "not enough telemetry in 2026Q2 (1.1% of its hours monitored, 50% needed)".
// Just below the minimum both would print alike ("50%, 50% needed"), so the
// figure then says it falls short.
func notEnoughTelemetry(quarter string, tc, need float64) string {
	got := shareText(tc)
	if got == shareText(need) {
		got = "just under " + got
	}
	return fmt.Sprintf("not enough telemetry in %s (%s of its hours monitored, %s needed)", quarter, got, shareText(need))
}

// UtilizationReading is how a quarter's observed utilization u (0–100) reads,
// given the monitored share of its billed GPU-hours (0–1): exact with full
// telemetry; below it a lower bound, "≥ 19.1%" with note "46% of billed
// GPU-hours monitored", because an unmonitored hour counts as not busy but may
// have been busy; "unknown" with no telemetry at all, never 0%.
func UtilizationReading(u, monitored float64) (value, note string) {
	switch {
	case monitored <= 0:
		return "unknown", "no telemetry"
	case monitored >= 1:
		return fmt.Sprintf("%.1f%%", u), ""
	}
	return fmt.Sprintf("≥ %.1f%%", u), shareText(monitored) + " of billed GPU-hours monitored"
}

// readings are ObservedText and PreviousText: each quarter's utilization as it
// reads, and for the previous quarter whether it counted.
func (mr *ModelReview) readings(previous string) (cur, prev string) {
	join := func(v, note string) string {
		if note == "" {
			return v
		}
		return v + " (" + note + ")"
	}
	cur = join(UtilizationReading(mr.ObservedUtilization, mr.MonitoredShare))
	if mr.PreviousUtilization == nil || mr.PreviousMonitoredShare == nil || mr.PreviousTelemetryCoverage == nil {
		return cur, "no data"
	}
	prev = join(UtilizationReading(*mr.PreviousUtilization, *mr.PreviousMonitoredShare))
	if !mr.PreviousVotes {
		prev += fmt.Sprintf("; not counted: %s of %s's hours monitored, %s needed", shareText(*mr.PreviousTelemetryCoverage),
			previous, shareText(mr.MinTelemetryCoverage))
	}
	return cur, prev
}

// shareText formats a 0–1 share as a percentage that never rounds a gap
// away: 0.46 → "46%", 0.011 → "1.1%", 0.9996 → ">99.9%", 0.0004 → "<0.1%".
func shareText(f float64) string {
	p := f * 100
	switch {
	case p <= 0:
		return "0%"
	case p >= 100:
		return "100%"
	case p < 0.05:
		return "<0.1%"
	case p < 10:
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	case p < 99.5:
		return strconv.FormatFloat(p, 'f', 0, 64) + "%"
	case p < 99.95:
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return ">99.9%"
}

// reviewConfidence: high with ≥ 90% of the quarter covered, < 10% unmonitored
// and a previous quarter that votes (enough telemetry, two thirds covered,
// < 10% unmonitored: its figure is no mere lower bound) to confirm it; low
// with less than MinReviewCoverage, > 30% unmonitored or too little telemetry
// to vote; else medium. A previous quarter that does not vote leaves the
// verdict resting on this quarter alone: medium at best.
func reviewConfidence(mr *ModelReview, unmon float64) string {
	switch {
	case mr.Coverage < MinReviewCoverage || unmon > 0.30 || !mr.QuarterVotes:
		return "low"
	case mr.Coverage >= 0.9 && unmon < 0.10 && mr.PreviousVotes && mr.PreviousCoverage != nil &&
		*mr.PreviousCoverage >= MinReviewCoverage && mr.PreviousMonitoredShare != nil && *mr.PreviousMonitoredShare > 0.90:
		return "high"
	}
	return "medium"
}

// reviewConverter converts configured amounts into the reporting currency.
type reviewConverter struct {
	currency string
	fx       map[string]decimal.Decimal
}

// rate is the factor from currency c ("" = the reporting currency).
func (c reviewConverter) rate(cur string) (float64, bool) {
	cur = strings.ToUpper(cur)
	if cur == "" || cur == strings.ToUpper(c.currency) {
		return 1, true
	}
	for k, v := range c.fx {
		if strings.ToUpper(k) == cur {
			return v.InexactFloat64(), true
		}
	}
	return 0, false
}

// trimNum formats 3 as "3" and 2.5 as "2.5".
func trimNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
