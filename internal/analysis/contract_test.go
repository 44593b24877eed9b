package analysis

import (
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

// TestContractMonthlyPrice: a 20,000-a-month rental reads 20,000 a month
// (issue #27: it read 19,700.46, the lookback's cost × 30 / 28 days, when
// the lookback crossed a 31-day month).
//
// The window is 9–16 Nov 2026 UTC and the 28-day lookback 19 Oct – 16 Nov:
// 13 days of October (31 days) and 15 of November (30 days). One GPU busy
// at 80 % all along, so the advice is to keep it.
//
//	rebuilt: 20,000 × (13/31 + 15/30) × 30/28 = 19,700.46 (the defect)
//	known:   each month's line is 20,000        → 20,000
//	changed: 18,000 × 13/31 + 20,000 × 15/30 = 17,548.39; × 30/28 = 18,801.84
//	         (no one price: rebuilt as before)
//	30-day months (AutoDL's 包月: 1 Oct → 31 Oct, 31 Oct → 30 Nov) → 20,000
func TestContractMonthlyPrice(t *testing.T) {
	utc := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	win := Window{Start: utc(11, 9), End: utc(11, 16), Label: "2026-11-09_2026-11-16"}
	lookback := Window{Start: utc(10, 19), End: utc(11, 16)}
	month := func(cost string, from, to time.Time) finops.BillingLine {
		return gpuLine("rent-1", finops.ModeMonthly, cost, from, to, 1)
	}
	for _, tc := range []struct {
		name  string
		lines []finops.BillingLine
		want  float64
	}{
		{"calendar months", []finops.BillingLine{month("20000", utc(10, 1), utc(11, 1)), month("20000", utc(11, 1), utc(12, 1))}, 20000},
		{"30-day months", []finops.BillingLine{month("20000", utc(10, 1), utc(10, 31)), month("20000", utc(10, 31), utc(11, 30))}, 20000},
		{"price changed", []finops.BillingLine{month("18000", utc(10, 1), utc(11, 1)), month("20000", utc(11, 1), utc(12, 1))}, 18801.84},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &Input{Window: win, Lookback: lookback, Lines: tc.lines, Params: DefaultParams(),
				GPUs: []finops.GPUSeries{series("GPU-1", "rent-1", lookback.Start, seg{28 * 1440, 80})}}
			r, err := Analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Recommendations) != 1 {
				t.Fatalf("recommendations = %+v, want one", r.Recommendations)
			}
			rec := r.Recommendations[0]
			if diff := rec.CurrentMonthlyCost - tc.want; diff > 0.005 || diff < -0.005 {
				t.Errorf("current monthly cost = %.4f, want %.2f", rec.CurrentMonthlyCost, tc.want)
			}
		})
	}
}
