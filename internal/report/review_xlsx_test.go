package report

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
)

// hostileModel is a GPU model name as a bill could carry it: a formula, markup
// and a control character. It gets no purchase assumptions.
const hostileModel = "=HYPERLINK(\"http://evil\")<script>alert(1)</script>\x1b[31m"

// reviewFixture is the worked example of docs/METRICS.md (analysis
// TestRentOrBuyWorkedExample) plus a hostile model: 2026Q1 in UTC (2,160 h),
// 2 × A100-80GB busy 60% of the hours (2,592 of 4,320 GPU-hours), rent ¥42,000,
// previous quarter 50%; catalog ¥15/GPU-hour and ¥7,000/GPU-month; purchase
// ¥100,000 + ¥20,000 server share over 3 years at 10% residual, 400 W, PUE 1.25,
// ¥1.00/kWh, load 0.8, hosting ¥300, ops ¥200. By hand: owned ¥3,792/GPU-month,
// breakeven 3,792 / 10,950 = 34.63%, rent ¥7,000 (monthly), savings ¥3,208
// per GPU-month (¥6,416 for both), payback 120,000 / 6,208 = 19.33 months: buy.
func reviewFixture(t testing.TB) *analysis.Review {
	t.Helper()
	q1 := analysis.Window{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Label: "2026Q1"}
	q4 := analysis.Window{Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), End: q1.Start, Label: "2025Q4"}
	result := func(q analysis.Window, res []analysis.ResourceCost) *analysis.Result {
		r := &analysis.Result{Period: analysis.Period{Start: q.Start, End: q.End, TimeZone: "UTC", Label: q.Label}, Currency: "CNY", ByResource: res}
		for d := q.Start; d.Before(q.End); d = d.AddDate(0, 0, 1) {
			for _, rc := range res {
				r.Daily = append(r.Daily, analysis.DailyCost{Day: d, GPUModel: rc.GPUModel, Cost: 1})
			}
		}
		return r
	}
	pair := func(active, hours float64) analysis.ResourceCost {
		return analysis.ResourceCost{ResourceID: "dc-a100x2", Provider: "TestCloud", GPUModel: "A100-80GB", GPUCount: 2,
			Pricing: finops.ModeMonthly, Cost: 7000 * 2 * hours / 720, GPUHoursBilled: 2 * hours, GPUHoursActive: active}
	}
	params := analysis.DefaultParams()
	rv, err := analysis.RentOrBuy(&analysis.ReviewInput{
		Quarter: q1, Previous: q4,
		Current: result(q1, []analysis.ResourceCost{
			{ResourceID: "evil", Provider: "TestCloud", GPUModel: hostileModel, GPUCount: 1, Pricing: finops.ModeHourly,
				Cost: 1000, GPUHoursBilled: 2160, GPUHoursActive: 216},
			pair(2592, 2160),
		}),
		PreviousResult: result(q4, []analysis.ResourceCost{pair(2208, 2208)}),
		Purchases: []analysis.PurchaseAssumption{{GPUModel: "A100-80GB", PricePerGPU: 100000, ServerShare: 20000,
			DepreciationYears: 3, Residual: 0.10, PowerWatts: 400, PUE: 1.25, ElectricityPrice: 1.00, Load: 0.8,
			HostingPerGPUMonth: 300, OpsPerGPUMonth: 200}},
		Prices: []analysis.Price{
			{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeHourly, Price: 15, Currency: "CNY"},
			{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeMonthly, Price: 7000, Currency: "CNY"},
		},
		Params: params,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

func openReviewBook(t *testing.T, rv *analysis.Review) *excelize.File {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteReviewXLSX(&buf, rv, testMeta()); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("workbook does not reopen: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// reviewRow returns the row (1-based) of sheet whose column A is first, and
// the header, so cells can be read by column title.
func reviewRow(t *testing.T, f *excelize.File, sheet, first string, nth int) (int, []string) {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for i, r := range rows {
		if i > 0 && len(r) > 0 && r[0] == first {
			if seen == nth {
				return i + 1, rows[0]
			}
			seen++
		}
	}
	t.Fatalf("%s: no row %d for %q", sheet, nth, first)
	return 0, nil
}

func reviewCell(t *testing.T, f *excelize.File, sheet string, row int, header []string, title string) string {
	t.Helper()
	i := slices.Index(header, title)
	if i < 0 {
		t.Fatalf("%s: no column %q in %q", sheet, title, header)
	}
	cell, _ := excelize.CoordinatesToCellName(i+1, row)
	v, err := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func checkNumbers(t *testing.T, f *excelize.File, sheet string, row int, header []string, want map[string]float64) {
	t.Helper()
	for title, w := range want {
		s := reviewCell(t, f, sheet, row, header, title)
		got, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Abs(got-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("%s row %d %q = %q, want %v", sheet, row, title, s, w)
		}
	}
}

func TestWriteReviewXLSXHandComputedCells(t *testing.T) {
	f := openReviewBook(t, reviewFixture(t))
	if got, want := f.GetSheetList(), []string{sheetRentOrBuy, sheetOwning, sheetSensitivity, sheetReviewNotes}; !slices.Equal(got, want) {
		t.Fatalf("sheets = %q, want %q", got, want)
	}

	row, h := reviewRow(t, f, sheetRentOrBuy, "A100-80GB", 0)
	checkNumbers(t, f, sheetRentOrBuy, row, h, map[string]float64{
		"GPUs":                         2,
		"Observed utilization":         0.60,
		"Previous quarter":             0.50,
		"Breakeven utilization":        3792.0 / 10950,
		"Margin (points)":              15,
		"Headroom (points)":            60 - 3792.0/10950*100,
		"Owned per GPU-month":          3792,
		"Rent per GPU-month":           7000,
		"Spent per GPU-month":          42000 * 730.0 / 4320,
		"Savings per GPU-month":        3208,
		"Savings per month (all GPUs)": 6416,
		"Purchase cost":                240000,
		"Payback (months)":             120000.0 / 6208,
		"Coverage":                     1,
	})
	for title, want := range map[string]string{"Verdict": "Buy", "Confidence": "high", "Rent option": "monthly"} {
		if got := reviewCell(t, f, sheetRentOrBuy, row, h, title); got != want {
			t.Errorf("%s = %q, want %q", title, got, want)
		}
	}

	row, h = reviewRow(t, f, sheetOwning, "A100-80GB", 0)
	checkNumbers(t, f, sheetOwning, row, h, map[string]float64{
		"Price per GPU + server share": 120000,
		"Depreciation years":           3,
		"Residual":                     0.10,
		"Depreciation per month":       3000,
		"Power per month":              292,
		"Hosting per month":            300,
		"Operations per month":         200,
		"Owned per GPU-month":          3792,
		"Hourly price":                 15,
		"Monthly price":                7000,
		"Rent cost in quarter":         42000,
		"GPU-hours billed":             4320,
		"GPU-hours active":             2592,
		"Covered days":                 90,
		"Active hours per GPU-month":   438,
	})

	// As configured, then ±1 year and ±20% price.
	for i, w := range []struct {
		name                    string
		years, capex, owned, be float64
		clears                  string
	}{
		{"as configured", 3, 120000, 3792, 3792.0 / 10950, "yes"},
		{"depreciation 2 years", 2, 120000, 5292, 5292.0 / 10950, "no"},
		{"depreciation 4 years", 4, 120000, 3042, 3042.0 / 10950, "yes"},
		{"price −20%", 3, 96000, 3192, 3192.0 / 10950, "yes"},
		{"price +20%", 3, 144000, 4392, 4392.0 / 10950, "yes"},
	} {
		row, h := reviewRow(t, f, sheetSensitivity, "A100-80GB", i)
		if got := reviewCell(t, f, sheetSensitivity, row, h, "Case"); got != w.name {
			t.Errorf("sensitivity row %d case = %q, want %q", i, got, w.name)
		}
		if got := reviewCell(t, f, sheetSensitivity, row, h, "Clears the margin"); got != w.clears {
			t.Errorf("%s clears = %q, want %q", w.name, got, w.clears)
		}
		checkNumbers(t, f, sheetSensitivity, row, h, map[string]float64{
			"Depreciation years": w.years, "Price per GPU + server share": w.capex, "Owned per GPU-month": w.owned,
			"Breakeven utilization": w.be, "Observed utilization": 0.6,
		})
	}
}

func TestWriteReviewXLSXHostileTextIsInert(t *testing.T) {
	f := openReviewBook(t, reviewFixture(t))
	rows, err := f.GetRows(sheetRentOrBuy)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows[1:] {
		if strings.Contains(r[0], "HYPERLINK") {
			found = true
			if !strings.HasPrefix(r[0], "'=") {
				t.Errorf("hostile model cell = %q, want a leading apostrophe", r[0])
			}
			if r[2] != "No purchase assumptions" || r[6] != "" {
				t.Errorf("hostile model row = %q: want no verdict and a blank breakeven", r)
			}
		}
	}
	if !found {
		t.Error("hostile model row missing")
	}
	// No cell of any sheet is a formula.
	for _, sheet := range f.GetSheetList() {
		rows, _ := f.GetRows(sheet)
		for ri, r := range rows {
			for ci := range r {
				cell, _ := excelize.CoordinatesToCellName(ci+1, ri+1)
				if fm, _ := f.GetCellFormula(sheet, cell); fm != "" {
					t.Errorf("%s!%s has formula %q", sheet, cell, fm)
				}
			}
		}
	}
}

func TestWriteReviewXLSXEmpty(t *testing.T) {
	rv := &analysis.Review{Quarter: analysis.Period{Label: "2026Q1", TimeZone: "UTC"}, Currency: "USD"}
	f := openReviewBook(t, rv)
	if rows, _ := f.GetRows(sheetRentOrBuy); len(rows) != 1 {
		t.Errorf("empty review: %d rows, want the header only", len(rows))
	}
	if err := WriteReviewXLSX(&bytes.Buffer{}, nil, Meta{}); err == nil {
		t.Error("nil review: want an error")
	}
}
