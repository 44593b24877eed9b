package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
)

// The worked example of docs/METRICS.md §Quarterly rent-or-buy review.
//
// Quarter 2026Q1 in UTC: 2026-01-01 → 2026-04-01, 90 days = 2,160 h. Previous
// quarter 2025Q4: 92 days = 2,208 h.
//
// Observed: one resource, 2 × A100-80GB on a monthly rental, billed the whole
// quarter: 2 × 2,160 = 4,320 GPU-hours billed, 2,592 active, none unmonitored,
// rent ¥42,000 (3 months × ¥7,000 × 2). In 2025Q4 the same pair was active
// 2,208 GPU-hours. Catalog: hourly ¥15 per GPU-hour, monthly ¥7,000 per GPU-month.
//
// Purchase: price ¥100,000 per GPU + server share ¥20,000, 3 years, residual
// 10%, 400 W, PUE 1.25, electricity ¥1.00/kWh, load 0.8, hosting ¥300 and
// operations ¥200 per GPU-month, margin 15 points (default).
//
//  1. capex          = 100,000 + 20,000                         = 120,000
//  2. depreciation   = 120,000 × (1 − 0.10) / (3 × 12) = 108,000 / 36 = 3,000.00 / month
//  3. power          = 0.4 kW × 1.25 × 730 h × ¥1.00 × 0.8        = 292.00 / month
//  4. owned          = 3,000 + 292 + 300 + 200                   = 3,792.00 per GPU-month
//  5. breakeven      = 3,792 / (15 × 730) = 3,792 / 10,950        = 34.630%
//  6. observed       = 2,592 / (2 GPUs × 2,160 h)                 = 60.000%  (25.370 points above)
//  7. previous       = 2,208 / (2 GPUs × 2,208 h)                 = 50.000%  ≥ 34.630 + 15 = 49.630
//  8. usage          = 0.60 × 730                                 = 438 h per GPU-month
//     hourly option  = 438 × 15 × 1.10                            = 7,227.00
//     monthly option = 7,000.00 → the cheaper: rent              = 7,000.00 per GPU-month (monthly)
//  9. savings        = 7,000 − 3,792 = 3,208 per GPU-month;  × 2  = 6,416 / month
//  10. payback       = 120,000 / (7,000 − (292 + 300 + 200)) = 120,000 / 6,208 = 19.330 months
//  11. sensitivity   2 years: 108,000 / 24 = 4,500 → 5,292 → 48.329% (60 < 63.329: does not clear)
//     4 years: 108,000 / 48 = 2,250 → 3,042 → 27.781% (clears)
//     price −20%: 96,000 × 0.9 / 36 = 2,400 → 3,192 → 29.151% (clears)
//     price +20%: 144,000 × 0.9 / 36 = 3,600 → 4,392 → 40.110% (clears: 60 ≥ 55.110)
//  12. current spend = 42,000 / (2 × 2,160 / 730 months)          = 7,097.22 per GPU-month
//
// Verdict: buy, with high confidence (the whole quarter covered, nothing
// unmonitored, the previous quarter confirms).
func TestRentOrBuyWorkedExample(t *testing.T) {
	in := rvInput(rvObs{util: 60}, &rvObs{util: 50})
	rv, err := RentOrBuy(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(rv.Models) != 1 {
		t.Fatalf("models = %+v", rv.Models)
	}
	m := rv.Models[0]
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"capex", m.Owned.CapexPerGPU, 120000},
		{"depreciation", m.Owned.Depreciation, 3000},
		{"power", m.Owned.Power, 292},
		{"hosting", m.Owned.Hosting, 300},
		{"ops", m.Owned.Ops, 200},
		{"owned", m.OwnedMonthlyPerGPU, 3792},
		{"breakeven", m.BreakevenUtilization, 3792.0 / 10950 * 100},
		{"observed", m.ObservedUtilization, 60},
		{"previous", *m.PreviousUtilization, 50},
		{"headroom", m.HeadroomPoints, 60 - 3792.0/10950*100},
		{"active h/month", m.ActiveHoursPerMonth, 438},
		{"rent", m.RentMonthlyPerGPU, 7000},
		{"savings/GPU", m.MonthlySavingsPerGPU, 3208},
		{"savings", m.MonthlySavings, 6416},
		{"payback", *m.PaybackMonths, 120000.0 / 6208},
		{"purchase cost", m.PurchaseCost, 240000},
		{"current spend", m.CurrentMonthlyCost, 42000 * 730.0 / 4320},
		{"months", m.Months, 2160.0 / 730},
		{"coverage", m.Coverage, 1},
		{"quarter days", m.QuarterDays, 90},
		{"p_h", m.HourlyPrice, 15},
		{"margin", m.MarginPoints, 15},
	} {
		if math.Abs(c.got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %.6f, want %.6f", c.name, c.got, c.want)
		}
	}
	if m.RentOption != finops.ModeMonthly || m.Verdict != VerdictBuy || m.Confidence != "high" {
		t.Errorf("option %s, verdict %s, confidence %s; want monthly, buy, high (%s)", m.RentOption, m.Verdict, m.Confidence, m.Reason)
	}
	if !strings.Contains(m.Reason, "busy 60.0%") || !strings.Contains(m.Reason, "34.6% breakeven") || !strings.Contains(m.Reason, "19.3 months") {
		t.Errorf("reason = %q", m.Reason)
	}
	// The first row is the assumptions as configured: 3 years, 120,000,
	// 3,792 a month; busy 60% clears breakeven 34.6% + the margin of 15.
	want := []Sensitivity{
		{Case: "as configured", DepreciationYears: 3, CapexPerGPU: 120000, OwnedMonthlyPerGPU: 3792, BreakevenUtilization: 3792.0 / 10950 * 100, ClearsMargin: true},
		{Case: "depreciation 2 years", DepreciationYears: 2, CapexPerGPU: 120000, OwnedMonthlyPerGPU: 5292, BreakevenUtilization: 5292.0 / 10950 * 100, ClearsMargin: false},
		{Case: "depreciation 4 years", DepreciationYears: 4, CapexPerGPU: 120000, OwnedMonthlyPerGPU: 3042, BreakevenUtilization: 3042.0 / 10950 * 100, ClearsMargin: true},
		{Case: "price −20%", DepreciationYears: 3, CapexPerGPU: 96000, OwnedMonthlyPerGPU: 3192, BreakevenUtilization: 3192.0 / 10950 * 100, ClearsMargin: true},
		{Case: "price +20%", DepreciationYears: 3, CapexPerGPU: 144000, OwnedMonthlyPerGPU: 4392, BreakevenUtilization: 4392.0 / 10950 * 100, ClearsMargin: true},
	}
	if m.AsConfigured == nil || len(m.Sensitivity) != len(want)-1 {
		t.Fatalf("as configured %+v, sensitivity = %+v", m.AsConfigured, m.Sensitivity)
	}
	for i, w := range want {
		g := *m.AsConfigured
		if i > 0 {
			g = m.Sensitivity[i-1]
		}
		if g.Case != w.Case || g.DepreciationYears != w.DepreciationYears || g.ClearsMargin != w.ClearsMargin ||
			math.Abs(g.CapexPerGPU-w.CapexPerGPU) > 1e-6 || math.Abs(g.OwnedMonthlyPerGPU-w.OwnedMonthlyPerGPU) > 1e-6 ||
			math.Abs(g.BreakevenUtilization-w.BreakevenUtilization) > 1e-9 {
			t.Errorf("sensitivity[%d] = %+v, want %+v", i, g, w)
		}
	}
	if rv.InProgress || rv.Quarter.Label != "2026Q1" || rv.Currency != "CNY" || len(rv.Warnings) != 0 {
		t.Errorf("review = %+v", rv)
	}
}

// TestRentOrBuyModelSpellings: purchase assumptions and prices written in a
// driver's or a bill's spelling of the billed A100-80GB meet it (package gpu
// reads them as ingest does), so the worked example's figures come out; a
// different card does not.
func TestRentOrBuyModelSpellings(t *testing.T) {
	for _, tc := range []struct {
		purchase, hourly, monthly string
		verdict                   string
	}{
		{"A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "a100 80g", VerdictBuy},
		{"a100-80gb", "A100-PCIE-80GB", "2 x A100-SXM4-80GB", VerdictBuy},
		{"A100-40GB", "A100-80GB", "A100-80GB", VerdictNoAssumptions},
		{"A800-80GB", "A100-80GB", "A100-80GB", VerdictNoAssumptions},
	} {
		in := rvInput(rvObs{util: 60}, &rvObs{util: 50})
		in.Purchases[0].GPUModel = tc.purchase
		in.Prices[0].GPUModel, in.Prices[1].GPUModel = tc.hourly, tc.monthly
		rv, err := RentOrBuy(in)
		if err != nil {
			t.Fatal(err)
		}
		if len(rv.Models) != 1 {
			t.Fatalf("%s: models = %+v", tc.purchase, rv.Models)
		}
		m := rv.Models[0]
		if m.GPUModel != "A100-80GB" || m.Verdict != tc.verdict {
			t.Errorf("%s: %s %s, want A100-80GB %s (%s)", tc.purchase, m.GPUModel, m.Verdict, tc.verdict, m.Reason)
		}
		if tc.verdict != VerdictBuy {
			if len(rv.Warnings) != 1 || !strings.Contains(rv.Warnings[0], tc.purchase+" match no GPU model") {
				t.Errorf("%s: warnings = %q", tc.purchase, rv.Warnings)
			}
			continue
		}
		// The worked example's owned cost, hourly and monthly prices.
		if m.OwnedMonthlyPerGPU != 3792 || m.HourlyPrice != 15 || m.MonthlyPrice == nil || *m.MonthlyPrice != 7000 || len(rv.Warnings) != 0 {
			t.Errorf("%s: owned %v, p_h %v, monthly %v, warnings %q", tc.purchase, m.OwnedMonthlyPerGPU, m.HourlyPrice, m.MonthlyPrice, rv.Warnings)
		}
	}
}

func TestRentOrBuyVerdicts(t *testing.T) {
	// Breakeven 34.630% and margin 15 as in the worked example: buying needs 49.630%.
	for _, tc := range []struct {
		name       string
		cur        rvObs
		prev       *rvObs
		edit       func(*ReviewInput)
		verdict    string
		confidence string
		reason     string
	}{
		{name: "buy", cur: rvObs{util: 60}, prev: &rvObs{util: 50}, verdict: VerdictBuy, confidence: "high", reason: "(50.0% in 2025Q4)"},
		{name: "buy without a previous quarter", cur: rvObs{util: 60}, verdict: VerdictBuy, confidence: "medium", reason: "pays back"},
		{name: "below breakeven: don't buy", cur: rvObs{util: 30}, prev: &rvObs{util: 30}, verdict: VerdictKeepRenting, confidence: "high",
			// 219 h × 15 × 1.1 = 3,613.50 renting hourly against 3,792 owning.
			reason: "below the 34.6% breakeven: renting hourly costs ¥3,614/GPU-month"},
		{name: "insufficient margin", cur: rvObs{util: 45}, prev: &rvObs{util: 60}, verdict: VerdictKeepRenting, confidence: "high",
			reason: "10.4 points above the 34.6% breakeven but short of the 15-point margin"},
		{name: "previous quarter below breakeven", cur: rvObs{util: 60}, prev: &rvObs{util: 30}, verdict: VerdictKeepRenting, confidence: "high",
			reason: "only 30.0% in 2025Q4, below the 34.6% breakeven"},
		{name: "previous quarter short of the margin", cur: rvObs{util: 60}, prev: &rvObs{util: 40}, verdict: VerdictKeepRenting, confidence: "high",
			reason: "40.0% in 2025Q4, short of the 34.6% breakeven plus the 15-point margin"},
		{name: "wider configured margin", cur: rvObs{util: 60}, prev: &rvObs{util: 70},
			edit:    func(in *ReviewInput) { v := 30.0; in.Purchases[0].MarginPoints = &v },
			verdict: VerdictKeepRenting, confidence: "high", reason: "short of the 30-point margin"},
		{name: "no price", cur: rvObs{util: 60}, prev: &rvObs{util: 60},
			// The catalog is empty and the card is rented monthly: no hourly rate to compare with.
			edit:    func(in *ReviewInput) { in.Prices = nil },
			verdict: VerdictNoPrice, confidence: "low", reason: "no hourly rental price for A100-80GB"},
		{name: "observed hourly rate when the catalog has none", cur: rvObs{util: 60, mode: finops.ModeHourly, cost: 4320 * 15}, prev: &rvObs{util: 60},
			edit:    func(in *ReviewInput) { in.Prices = nil },
			verdict: VerdictBuy, confidence: "high", reason: "renting hourly"},
		{name: "renting monthly is cheaper than owning", cur: rvObs{util: 60}, prev: &rvObs{util: 60},
			edit: func(in *ReviewInput) {
				in.Prices[1].Price = 3000 // monthly 3,000 < owned 3,792
			},
			verdict: VerdictKeepRenting, confidence: "high", reason: "renting monthly at ¥3,000/GPU-month is cheaper than owning"},
		{name: "owning costs more than renting around the clock", cur: rvObs{util: 95}, prev: &rvObs{util: 95},
			edit:    func(in *ReviewInput) { in.Prices[0].Price = 5 }, // 3,792 / (5 × 730) = 103.9%
			verdict: VerdictKeepRenting, confidence: "high", reason: "more than renting hourly around the clock"},
		{name: "quarter incomplete", cur: rvObs{util: 60, days: 28}, verdict: VerdictInsufficientData, confidence: "low",
			reason: "the data covers 28 of the 90 days of 2026Q1 and a purchase needs at least 60 days"},
		{name: "no utilization data", cur: rvObs{util: 0, unmonitored: 1}, prev: &rvObs{util: 60}, verdict: VerdictInsufficientData, confidence: "low",
			reason: "no utilization data"},
		{name: "no purchase assumptions", cur: rvObs{util: 60}, edit: func(in *ReviewInput) { in.Purchases[0].GPUModel = "H100" },
			verdict: VerdictNoAssumptions, confidence: "low", reason: "no purchase assumptions for A100-80GB"},
		// 32% unmonitored: 68% monitored still counts (≥ 2/3), > 30% → low.
		{name: "mostly unmonitored", cur: rvObs{util: 60, unmonitored: 0.32}, prev: &rvObs{util: 60}, verdict: VerdictBuy, confidence: "low",
			reason: "utilization is a lower bound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := rvInput(tc.cur, tc.prev)
			if tc.edit != nil {
				tc.edit(in)
			}
			rv, err := RentOrBuy(in)
			if err != nil {
				t.Fatal(err)
			}
			m := rv.Models[0]
			if m.Verdict != tc.verdict || m.Confidence != tc.confidence || !strings.Contains(m.Reason, tc.reason) {
				t.Errorf("verdict %s (%s): %q\nwant %s (%s) mentioning %q", m.Verdict, m.Confidence, m.Reason, tc.verdict, tc.confidence, tc.reason)
			}
			// The as-configured row needs an hourly price and assumptions.
			noRow := tc.verdict == VerdictNoPrice || tc.verdict == VerdictNoAssumptions
			if (m.AsConfigured == nil) != noRow {
				t.Errorf("as configured = %+v with verdict %s", m.AsConfigured, m.Verdict)
			}
		})
	}
}

func TestRentOrBuySpotAndCurrency(t *testing.T) {
	// Interruptible work on an hourly card busy 30%: spot at ¥6 × 219 h × 1.15 =
	// ¥1,511.10 beats hourly 219 × 15 × 1.1 = ¥3,613.50 and monthly ¥7,000.
	// Purchase assumptions in USD at 7.1: 14,084.507 + 2,816.901 USD = ¥120,000 capex.
	in := rvInput(rvObs{util: 30, mode: finops.ModeHourly, cost: 4320 * 15}, nil)
	in.Resources = []Resource{{ID: "dc-a100x2", Interruptible: true}}
	in.Prices = append(in.Prices, Price{Provider: "TestCloud", GPUModel: "a100-80gb", Mode: finops.ModeSpot, Price: 6, Currency: "CNY"})
	in.Params.FX = map[string]decimal.Decimal{"USD": decimal.RequireFromString("7.1")}
	a := &in.Purchases[0]
	a.Currency = "USD"
	for _, v := range []*float64{&a.PricePerGPU, &a.ServerShare, &a.ElectricityPrice, &a.HostingPerGPUMonth, &a.OpsPerGPUMonth} {
		*v /= 7.1
	}
	rv, err := RentOrBuy(in)
	if err != nil {
		t.Fatal(err)
	}
	m := rv.Models[0]
	if m.RentOption != finops.ModeSpot || math.Abs(m.RentMonthlyPerGPU-219*6*1.15) > 1e-9 || math.Abs(m.OwnedMonthlyPerGPU-3792) > 1e-6 {
		t.Errorf("rent %s %.4f, owned %.4f", m.RentOption, m.RentMonthlyPerGPU, m.OwnedMonthlyPerGPU)
	}
	// No rate for the purchase currency is an error, never a silent 1.0.
	in.Params.FX = nil
	if _, err := RentOrBuy(in); err == nil || !strings.Contains(err.Error(), "fx.USD") {
		t.Errorf("err = %v, want a missing-rate error naming fx.USD", err)
	}
}

func TestRentOrBuyInProgress(t *testing.T) {
	// The review runs on 2026-02-15 with data from 2026-01-01: 45 of 90 days.
	in := rvInput(rvObs{util: 60, days: 90}, nil)
	in.AsOf = time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)
	rv, err := RentOrBuy(in)
	if err != nil {
		t.Fatal(err)
	}
	m := rv.Models[0]
	if !rv.InProgress || m.CoveredDays != 45 || m.Verdict != VerdictInsufficientData || !strings.Contains(m.Reason, "still in progress") {
		t.Errorf("in progress %v, covered %.1f, %s: %s", rv.InProgress, m.CoveredDays, m.Verdict, m.Reason)
	}
	if len(rv.Warnings) != 1 || !strings.Contains(rv.Warnings[0], "2026Q1 is still in progress") {
		t.Errorf("warnings = %q", rv.Warnings)
	}
}

// TestRentOrBuyFromAnalyze runs the review on Analyze's own output: two
// A100s on three monthly lines (¥14,000 a month for the pair) busy 00:00–14:24
// every day of 2026Q1 (864 of 1,440 minutes = 60%) and idle otherwise.
func TestRentOrBuyFromAnalyze(t *testing.T) {
	q := Window{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Label: "2026Q1"}
	var lines []finops.BillingLine
	for m := 0; m < 3; m++ {
		s := q.Start.AddDate(0, m, 0)
		d := decimal.NewFromInt(14000)
		lines = append(lines, finops.BillingLine{Provider: "TestCloud", ResourceID: "dc-a100x2", ChargeStart: s,
			ChargeEnd: s.AddDate(0, 1, 0), ChargeCategory: finops.ChargeUsage, PricingMode: finops.ModeMonthly,
			GPUModel: "A100-80GB", GPUCount: 2, EffectiveCost: &d, Currency: "CNY"})
	}
	var gpus []finops.GPUSeries
	for i := 0; i < 2; i++ {
		s := finops.GPUSeries{Key: "gpu-a/" + string(rune('0'+i)), Host: "gpu-a", Index: i, Interval: time.Minute}
		for m := q.Start.Unix() / 60; m < q.End.Unix()/60; m++ {
			u := 3.0
			if m%1440 < 864 {
				u = 90
			}
			s.Add(m, u)
		}
		gpus = append(gpus, s)
	}
	params := DefaultParams()
	params.Currency = "CNY"
	res, err := Analyze(&Input{Window: q, Lookback: Window{Start: q.End.AddDate(0, 0, -28), End: q.End}, Lines: lines, GPUs: gpus,
		Resources: []Resource{{ID: "dc-a100x2", Hosts: []string{"gpu-a"}}}, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	in := rvInput(rvObs{util: 60}, nil)
	in.Current = res
	rv, err := RentOrBuy(in)
	if err != nil {
		t.Fatal(err)
	}
	m := rv.Models[0]
	if math.Abs(m.ObservedUtilization-60) > 1e-6 || m.Coverage != 1 || m.GPUs != 2 || math.Abs(m.RentCost-42000) > 1e-6 ||
		m.Verdict != VerdictBuy || m.Confidence != "medium" {
		t.Errorf("observed %.4f%%, coverage %.3f, GPUs %d, rent %.2f, %s (%s): %s", m.ObservedUtilization, m.Coverage, m.GPUs,
			m.RentCost, m.Verdict, m.Confidence, m.Reason)
	}
}

// rvObs is one quarter of the example pair: utilization as a share of all
// hours, the days of data from the quarter start, the unmonitored share of the
// billed hours, and the pricing mode and cost of the rental.
type rvObs struct {
	util, unmonitored float64
	days              int // 0: the whole quarter
	mode              string
	cost              float64
}

var (
	rvQ1 = Window{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Label: "2026Q1"}
	rvQ4 = Window{Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Label: "2025Q4"}
)

// rvResult builds what Analyze reports for 2 × A100-80GB over q.
func rvResult(q Window, o rvObs) *Result {
	days := o.days
	if days == 0 {
		days = int(q.End.Sub(q.Start).Hours() / 24)
	}
	mode, cost := o.mode, o.cost
	if mode == "" {
		mode = finops.ModeMonthly
	}
	billed := 2 * float64(days) * 24
	if cost == 0 {
		cost = 7000 * 2 * float64(days) / 30
	}
	r := &Result{Period: Period{Start: q.Start, End: q.End, TimeZone: "UTC", Label: q.Label}, Currency: "CNY",
		ByResource: []ResourceCost{{ResourceID: "dc-a100x2", Provider: "TestCloud", GPUModel: "A100-80GB", GPUCount: 2,
			Pricing: mode, Cost: cost, GPUHoursBilled: billed, GPUHoursActive: o.util / 100 * billed,
			GPUHoursUnmonitored: o.unmonitored * billed}}}
	for d := 0; d < days; d++ {
		r.Daily = append(r.Daily, DailyCost{Day: q.Start.AddDate(0, 0, d), Team: "nlp", GPUModel: "A100-80GB", Cost: cost / float64(days)})
	}
	return r
}

// rvInput is the worked example's input with the given quarters.
func rvInput(cur rvObs, prev *rvObs) *ReviewInput {
	in := &ReviewInput{
		Quarter: rvQ1, Previous: rvQ4, Current: rvResult(rvQ1, cur),
		Purchases: []PurchaseAssumption{{GPUModel: "A100-80GB", PricePerGPU: 100000, ServerShare: 20000, DepreciationYears: 3,
			Residual: 0.10, PowerWatts: 400, PUE: 1.25, ElectricityPrice: 1.00, Load: 0.8, HostingPerGPUMonth: 300,
			OpsPerGPUMonth: 200, Currency: "CNY"}},
		Prices: []Price{
			{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeHourly, Price: 15, Currency: "CNY"},
			{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeMonthly, Price: 7000, Currency: "CNY"},
		},
		Params: DefaultParams(),
	}
	if prev != nil {
		in.PreviousResult = rvResult(rvQ4, *prev)
	}
	return in
}
