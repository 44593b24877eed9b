package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
)

// coverageReview is the worked example's pair (reviewFixture: owned ¥3,792,
// p_h ¥15, breakeven 34.63%, buy above 49.63%) in 2026Q1 (2,160 h, 4,320
// GPU-hours billed) with the given active and unmonitored GPU-hours, against
// a 2025Q4 (2,208 h) of prevDays days of data from 2025-12-31 backwards,
// prevActive GPU-hours active and all of it monitored.
func coverageReview(t *testing.T, active, unmonitored float64, prevDays int, prevActive float64) analysis.ModelReview {
	t.Helper()
	q1 := analysis.Window{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Label: "2026Q1"}
	q4 := analysis.Window{Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), End: q1.Start, Label: "2025Q4"}
	result := func(q analysis.Window, from time.Time, rc analysis.ResourceCost) *analysis.Result {
		r := &analysis.Result{Period: analysis.Period{Start: q.Start, End: q.End, TimeZone: "UTC", Label: q.Label}, Currency: "CNY",
			ByResource: []analysis.ResourceCost{rc}}
		for d := from; d.Before(q.End); d = d.AddDate(0, 0, 1) {
			r.Daily = append(r.Daily, analysis.DailyCost{Day: d, GPUModel: rc.GPUModel, Cost: 1})
		}
		return r
	}
	pair := func(hours, active, unmonitored float64) analysis.ResourceCost {
		return analysis.ResourceCost{ResourceID: "dc-a100x2", Provider: "TestCloud", GPUModel: "A100-80GB", GPUCount: 2,
			Pricing: finops.ModeMonthly, Cost: 7000 * 2 * hours / 720, GPUHoursBilled: 2 * hours, GPUHoursActive: active,
			GPUHoursUnmonitored: unmonitored}
	}
	rv, err := analysis.RentOrBuy(&analysis.ReviewInput{
		Quarter: q1, Previous: q4,
		Current:        result(q1, q1.Start, pair(2160, active, unmonitored)),
		PreviousResult: result(q4, q4.End.AddDate(0, 0, -prevDays), pair(float64(24*prevDays), prevActive, 0)),
		Purchases: []analysis.PurchaseAssumption{{GPUModel: "A100-80GB", PricePerGPU: 100000, ServerShare: 20000,
			DepreciationYears: 3, Residual: 0.10, PowerWatts: 400, PUE: 1.25, ElectricityPrice: 1.00, Load: 0.8,
			HostingPerGPUMonth: 300, OpsPerGPUMonth: 200}},
		Prices: []analysis.Price{
			{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeHourly, Price: 15, Currency: "CNY"},
			{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeMonthly, Price: 7000, Currency: "CNY"},
		},
		Params: analysis.DefaultParams(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rv.Models) != 1 {
		t.Fatalf("models = %+v", rv.Models)
	}
	return rv.Models[0]
}

// TestWriteReviewCoverage: the HTML page, the workbook and the JSON each say
// when a quarter's utilization is a lower bound, with its coverage, and when
// the previous quarter had too little telemetry to count (issue #25).
func TestWriteReviewCoverage(t *testing.T) {
	for _, tc := range []struct {
		name string
		// 2026Q1 active and unmonitored GPU-hours of 4,320; 2025Q4 days and active GPU-hours.
		active, unmonitored float64
		prevDays            int
		prevActive          float64
		html                []string
		cells               map[string]string // Rent-or-buy sheet, by column title
		numbers             map[string]float64
		json                map[string]any
		summary             string // the terminal summary row's OBSERVED cell
	}{
		{
			// 54% unmonitored: 0.54 × 4,320 = 2,332.8; active 0.191 × 4,320 =
			// 825.12 → ≥ 19.1% with 46% monitored, at most (825.12 + 2,332.8) /
			// 4,320 = 73.1%; 46% < 66.7%: 2026Q1 does not count. 2025Q4 whole and
			// busy 50% (2,208 of 4,416): it counts.
			name: "54% unmonitored", active: 825.12, unmonitored: 2332.8, prevDays: 92, prevActive: 2208,
			html: []string{"≥ 19.1%", "46% monitored", "≥ 19.1% (46% of billed GPU-hours monitored)",
				"46% of the billed GPU-hours monitored, 46% of the quarter&#39;s hours (67% needed for the quarter to count)",
				"utilization would be 73.1%", "not enough telemetry in 2026Q1 (46% of its hours monitored, 67% needed)",
				`fill-opacity="0.25"`, "Not enough data"},
			cells: map[string]string{"Observed utilization reads": "≥ 19.1% (46% of billed GPU-hours monitored)",
				"Quarter counts": "no", "Previous quarter reads": "50.0%", "Previous quarter counts": "yes", "Verdict": "Not enough data"},
			numbers: map[string]float64{"Observed utilization": 0.191, "Observed at most": (825.12 + 2332.8) / 4320,
				"Billed GPU-hours monitored": 0.46, "Quarter hours monitored": 0.46, "Needed to count": 2.0 / 3,
				"Previous quarter hours monitored": 1},
			json: map[string]any{"observed_is_lower_bound": true, "monitored_share": 0.46, "telemetry_coverage": 0.46,
				"quarter_votes": false, "observed_text": "≥ 19.1% (46% of billed GPU-hours monitored)", "verdict": analysis.VerdictInsufficientData,
				"previous_votes": true, "min_telemetry_coverage": 2.0 / 3},
			summary: "≥ 19.1%",
		},
		{
			// 2026Q1 busy 62.5% (2,700 of 4,320), all monitored; 2025Q4 one day
			// (24 of 2,208 h = 1.087%) at 2 of 48 GPU-hours = 4.2%: it does not
			// count, so it no longer vetoes the buy.
			name: "previous quarter 1.1%", active: 2700, prevDays: 1, prevActive: 2,
			html: []string{"62.5%", "4.2%", "not counted", "4.2%; not counted: 1.1% of 2025Q4&#39;s hours monitored, 67% needed",
				"not enough telemetry in 2025Q4 (1.1% of its hours monitored, 67% needed) to compare",
				`<span class="verdict verdict-buy">Buy</span>`},
			cells: map[string]string{"Observed utilization reads": "62.5%", "Quarter counts": "yes",
				"Previous quarter reads":  "4.2%; not counted: 1.1% of 2025Q4's hours monitored, 67% needed",
				"Previous quarter counts": "no", "Verdict": "Buy", "Observed at most": ""},
			numbers: map[string]float64{"Observed utilization": 0.625, "Billed GPU-hours monitored": 1,
				"Quarter hours monitored": 1, "Previous quarter hours monitored": 24.0 / 2208},
			json: map[string]any{"observed_is_lower_bound": false, "monitored_share": 1.0, "quarter_votes": true,
				"previous_votes": false, "previous_telemetry_coverage": 24.0 / 2208, "verdict": analysis.VerdictBuy},
			summary: "62.5%",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := coverageReview(t, tc.active, tc.unmonitored, tc.prevDays, tc.prevActive)
			rv := reviewFixture(t)
			rv.Models = []analysis.ModelReview{m}

			page := renderReview(t, rv)
			for _, want := range tc.html {
				if !strings.Contains(page, want) {
					t.Errorf("page lacks %q", want)
				}
			}

			f := openReviewBook(t, rv)
			row, h := reviewRow(t, f, sheetRentOrBuy, "A100-80GB", 0)
			for title, want := range tc.cells {
				if got := reviewCell(t, f, sheetRentOrBuy, row, h, title); got != want {
					t.Errorf("%s = %q, want %q", title, got, want)
				}
			}
			checkNumbers(t, f, sheetRentOrBuy, row, h, tc.numbers)

			var buf bytes.Buffer
			if err := WriteReviewJSON(&buf, rv); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Models []map[string]any `json:"models"`
			}
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.json {
				got := doc.Models[0][k]
				if g, ok := got.(float64); ok {
					if w, ok := want.(float64); ok && g-w < 1e-9 && w-g < 1e-9 {
						continue
					}
				}
				if got != want {
					t.Errorf("json %s = %v, want %v", k, got, want)
				}
			}

			var sum bytes.Buffer
			if err := WriteReviewSummary(&sum, rv); err != nil {
				t.Fatal(err)
			}
			// The table's row, not the reason line below it ("  A100-80GB: busy …").
			var line string
			for _, l := range strings.Split(sum.String(), "\n") {
				if strings.HasPrefix(l, "  A100-80GB ") {
					line = l
					break
				}
			}
			if f := strings.Fields(line); len(f) < 3 || !strings.HasPrefix(strings.Join(f[2:], " "), tc.summary+" ") {
				t.Errorf("summary row %q: OBSERVED want %q:\n%s", line, tc.summary, sum.String())
			}
		})
	}
}
