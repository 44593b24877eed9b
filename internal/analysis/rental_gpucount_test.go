package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/testnum"
)

// lineSink keeps the billing lines a parse gives.
type lineSink struct{ lines []finops.BillingLine }

func (s *lineSink) Billing(l *finops.BillingLine) error { s.lines = append(s.lines, *l); return nil }
func (s *lineSink) Sample(*finops.GPUSample) error      { return nil }
func (s *lineSink) TaskRun(*finops.TaskRun) error       { return nil }

// A monthly AutoDL rental of two A100s, read from a bill with its own GPU数量
// column, is priced for two GPUs (issue #24: it was read as one).
//
// The bill: ¥6,000.00 for 2026-10-01 → 10-31 China time (30 days), GPU型号
// A100-SXM4-80GB (A100-80GB), GPU数量 2. Both GPUs are busy 400 minutes a
// day, so each is busy 400 × 30 / 60 = 200 h a month. Catalog: ¥10 per
// GPU-hour, ¥3,000 per GPU-month.
//
//	current:  6,000 × 30 / 30                     = 6,000
//	hourly:   200 h × 10 × 1.1 (slack) × 2 GPUs   = 4,400
//	monthly:  3,000 × 2 GPUs                      = 6,000
//	→ switch_to_hourly, saving 6,000 − 4,400      = 1,600
//	breakeven 3,000 / (10 × 1.1)                  = 272.73 h
//
// Read as one GPU, both GPUs' 400 busy minutes would be one GPU's 400 h a
// month, hourly 400 × 10 × 1.1 = 4,400 against monthly 3,000: "keep", and no
// saving at all.
func TestRentalGPUCountPricesEveryGPU(t *testing.T) {
	csv := "实例ID,实例名称,GPU型号,GPU数量,计费方式,开始时间,结束时间,应付金额,原价\n" +
		"autodl-m2,训练机,A100-SXM4-80GB,2,包月,2026-10-01 00:00:00,2026-10-31 00:00:00,\"¥6,000.00\",\"¥6,600.00\"\n"
	sink := &lineSink{}
	if _, err := ingest.Parse(t.Context(), strings.NewReader(csv), ingest.Options{Name: "autodl.csv"}, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.lines) != 1 {
		t.Fatalf("lines %+v, want one", sink.lines)
	}
	if l := sink.lines[0]; l.GPUCount != 2 || l.GPUModel != "A100-80GB" {
		t.Errorf("line of %d × %s, want 2 × A100-80GB", l.GPUCount, l.GPUModel)
	}
	start := time.Date(2026, 9, 30, 16, 0, 0, 0, time.UTC) // 2026-10-01 00:00 China time
	end := start.AddDate(0, 0, 30)
	day := repeatDays(30, seg{400, 90}, seg{1040, 0})
	g0, g1 := series("G0", "h", start, day...), series("G1", "h", start, day...)
	g1.Index = 1
	in := &Input{
		Window:    Window{Start: end.AddDate(0, 0, -7), End: end},
		Lookback:  Window{Start: start, End: end},
		Lines:     sink.lines,
		GPUs:      []finops.GPUSeries{g0, g1},
		Resources: []Resource{{ID: "autodl-m2", Hosts: []string{"h"}}},
		Prices: []Price{
			{Provider: "AutoDL", GPUModel: "A100-80GB", Mode: finops.ModeHourly, Price: 10, Currency: "CNY"},
			{Provider: "AutoDL", GPUModel: "A100-80GB", Mode: finops.ModeMonthly, Price: 3000, Currency: "CNY"},
		},
		Params: DefaultParams(),
	}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Recommendations) != 1 {
		t.Fatalf("recommendations = %d", len(r.Recommendations))
	}
	got := r.Recommendations[0]
	if got.GPUCount != 2 || got.Action != ActionSwitchToHourly {
		t.Errorf("%d GPUs, action %s (%s); want 2 GPUs, %s", got.GPUCount, got.Action, got.Reason, ActionSwitchToHourly)
	}
	testnum.NearRel(t, "A30", got.ActiveHoursPerMonth, 200, 1e-6)
	testnum.NearRel(t, "current", got.CurrentMonthlyCost, 6000, 1e-6)
	testnum.NearRel(t, "recommended", got.RecommendedMonthlyCost, 4400, 1e-6)
	testnum.NearRel(t, "savings", got.MonthlySavings, 1600, 1e-6)
	testnum.NearRel(t, "breakeven", got.BreakevenHoursPerMonth, 3000.0/11, 1e-6)
}
