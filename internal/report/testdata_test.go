package report

import (
	"math"
	"testing"
	"time"
	_ "time/tzdata" // tests must not depend on the host's zoneinfo

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
)

// Hostile strings as they could arrive in bills, tags and task files.
const (
	hostileFormula = `=HYPERLINK("http://x","y")`
	hostileScript  = `</script><script>alert(1)</script>__f__function(){}__f__`
)

// shanghai returns the report zone of the hand-built Result.
func shanghai(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// handResult is a small Result built by hand. The numbers are chosen so that
// every expectation in the tests can be worked out on paper:
//
//	resource          GPUs  billed h  rate/GPU-h  cost   active  idle  unmon  idle cost
//	gpu-a100-1          8    1344       2.50      3360    1000    300    44     750
//	hostileScript       1     100       2.00       200      60     40     0      80
//	gpu-h100-2          2      50      10.00       500      50      0     0       0
//	                         1494                 4060    1110    340    44     830
//
// Non-GPU cost 440 → total 4500; idle share 830/4500 = 18.44 %. Teams: ml-train
// 4160 (GPU 3860), hostileFormula 340 (GPU 200). Daily costs cover 16, 17 and 19
// November (Asia/Shanghai); 18 November has none and must show as zero.
// The previous period cost 3700 + 300 = 4000, so the week is up 12.5 %;
// ml-train's month-end forecast (21,000) is over its 20,000 budget. Four
// findings (4800/month, 600, 80, 1000), one pool, and train-llm's unit cost per
// day (1,000, 900, none, 1,100) complete the report model.
func handResult(t testing.TB) *analysis.Result {
	loc := shanghai(t)
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, loc) }
	hour := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, loc) }
	return &analysis.Result{
		Period: analysis.Period{
			Start:    day(16),
			End:      day(23),
			TimeZone: "Asia/Shanghai",
			Label:    "2026-W47",
		},
		Currency: "CNY",
		Totals: analysis.Totals{
			Cost:                 4500,
			GPUCost:              4060,
			NonGPUCost:           440,
			OtherCharges:         12.5,
			GPUHoursBilled:       1494,
			GPUHoursActive:       1110,
			GPUHoursIdle:         340,
			GPUHoursUnmonitored:  44,
			IdleCost:             830,
			UnmonitoredCost:      110,
			UnallocatedCost:      300,
			AllocatedIdleCost:    600,
			UnusedCommitmentCost: 0,
			AvgGPUUtilization:    52,
			MonthlySavings:       5040,
			PreviousCost:         4000, // the teams' 3700 + 300: +12.5 % week over week
		},
		ByTeam: []analysis.TeamCost{
			// Previous period 4000 in all: +12.5 % week over week.
			// ml-train will end the month over its budget.
			{Team: "ml-train", Cost: 4160, GPUCost: 3860, IdleCost: 750, Budget: new(20000.0),
				PreviousCost: 3700, MonthToDate: 9000, MonthForecast: 21000},
			{Team: hostileFormula, Cost: 340, GPUCost: 200, IdleCost: 80,
				PreviousCost: 300, MonthToDate: 700, MonthForecast: 1500},
		},
		ByResource: []analysis.ResourceCost{
			{ResourceID: "gpu-a100-1", Provider: "acme", GPUModel: "A100-80GB", GPUCount: 8, Pricing: "monthly", Team: "ml-train",
				Cost: 3360, GPUHoursBilled: 1344, GPUHoursActive: 1000, GPUHoursIdle: 300, GPUHoursUnmonitored: 44,
				IdleCost: 750, UnmonitoredCost: 110, AvgUtilization: 55.5, PreviousCost: 3000,
				Bands:          analysis.UtilBands{Idle: 300, Low: 400, Fair: 400, Target: 150, Saturated: 50},
				SaturatedHours: 2.5},
			{ResourceID: hostileScript, Provider: "hostcloud", GPUModel: "L40S", GPUCount: 1, Pricing: "hourly", Team: hostileFormula,
				Cost: 200, GPUHoursBilled: 100, GPUHoursActive: 60, GPUHoursIdle: 40, IdleCost: 80, AvgUtilization: 30},
			{ResourceID: "gpu-h100-2", Provider: "acme", GPUModel: "H100", GPUCount: 2, Pricing: "spot", Team: "ml-train",
				Cost: 500, GPUHoursBilled: 50, GPUHoursActive: 50, AvgUtilization: 90},
		},
		Tasks: []analysis.TaskCost{
			// Every GPU-hour the tasks held was monitored: their idle costs are measured.
			{Task: "train-llm", Team: "ml-train", Kind: "training", Cost: 3000, GPUHours: 1200, GPUHoursMonitored: 1200, IdleCost: 600,
				Units: 3, Unit: "run", UnitCost: 1000},
			{Task: hostileFormula, Team: hostileFormula, Kind: "inference", Cost: 120, GPUHours: 60, GPUHoursMonitored: 60},
		},
		Recommendations: []analysis.Recommendation{
			{ResourceID: "gpu-h100-2", GPUModel: "H100", GPUCount: 2, CurrentMode: "spot", Action: analysis.ActionKeep,
				CurrentMonthlyCost: 2142.86, RecommendedMonthlyCost: 2142.86, Confidence: "low", Reason: "no utilization data"},
			{ResourceID: hostileScript, GPUModel: "L40S", GPUCount: 1, CurrentMode: "hourly", Action: analysis.ActionStopWhenIdle,
				CurrentMonthlyCost: 600, RecommendedMonthlyCost: 360, MonthlySavings: 240, ActiveHoursPerMonth: 180,
				Confidence: "medium", Reason: "idle 40% of billed hours; an auto-stop rule saves it"},
			{ResourceID: "gpu-a100-1", GPUModel: "A100-80GB", GPUCount: 8, CurrentMode: "monthly", Action: analysis.ActionSwitchToHourly,
				CurrentMonthlyCost: 14400, RecommendedMonthlyCost: 9600, MonthlySavings: 4800, ActiveHoursPerMonth: 130,
				BreakevenHoursPerMonth: 438, Confidence: "high", Reason: "busy 130 h/month; monthly pays off above 438 h/month"},
		},
		Findings: []analysis.Finding{
			{Kind: analysis.FindingRecommendation, Severity: "high", ResourceID: "gpu-a100-1", Team: "ml-train", Money: 4800,
				Text: "switch to hourly: busy 130 h/month; monthly pays off above 438 h/month"},
			{Kind: analysis.FindingAllocatedIdle, Severity: "medium", Team: "ml-train", Money: 600,
				Text: "train-llm held its GPUs idle for 240 GPU-hours: fix the job"},
			{Kind: analysis.FindingForgotten, Severity: "high", ResourceID: hostileScript, Team: hostileFormula, Money: 80,
				Text: "idle 40 h in one run " + hostileScript},
			{Kind: analysis.FindingBudget, Severity: "low", Team: "ml-train", Money: 1000,
				Text: "ml-train will spend ¥21,000 this month against a budget of ¥20,000"},
		},
		Pools: []analysis.Pool{
			{Provider: "acme", GPUModel: "A100-80GB", Resources: 1, GPUs: 8, CurrentMonthlyCost: 14400, MonthlyCards: 5,
				PoolMonthlyCost: 12000, MonthlySavings: 2400, Reason: "5 monthly cards cover the busy hours; burst the rest hourly"},
		},
		IdleSpans: []analysis.IdleSpan{
			// 09:00–12:00 local on 17 November.
			{ResourceID: "gpu-a100-1", GPU: "GPU-0001", Start: time.Date(2026, 11, 17, 1, 0, 0, 0, time.UTC),
				End: time.Date(2026, 11, 17, 4, 0, 0, 0, time.UTC), Hours: 3, Cost: 7.5},
			// 22:30 local on 18 November to 00:30 local on 19 November.
			{ResourceID: hostileScript, GPU: "host-b:0", Start: time.Date(2026, 11, 18, 14, 30, 0, 0, time.UTC),
				End: time.Date(2026, 11, 18, 16, 30, 0, 0, time.UTC), Hours: 2, Cost: 4},
		},
		DataQuality: analysis.DataQuality{
			Sources: []analysis.SourceStatus{
				{Name: "bill.csv", Kind: "rental_csv", Status: "ok"},
				{Name: "prometheus", Kind: "prometheus", Status: "stale", Detail: "last sample 3 days before the window end"},
				{Name: "dcgm", Kind: "dcgm", Status: "missing"},
			},
			RowsRejected:     2,
			UnmonitoredShare: 44.0 / 1494.0,
			Warnings:         []string{"2 rows rejected: unknown currency XYZ"},
		},
		Daily: []analysis.DailyCost{
			{Day: day(16), Team: "ml-train", GPUModel: "A100-80GB", Cost: 480},
			{Day: day(16), Team: "ml-train", GPUModel: "", Cost: 40},
			{Day: day(16), Team: hostileFormula, GPUModel: "L40S", Cost: 30},
			{Day: day(17), Team: "ml-train", GPUModel: "A100-80GB", Cost: 480},
			{Day: day(17), Team: hostileFormula, GPUModel: "L40S", Cost: 20},
			{Day: day(19), Team: "ml-train", GPUModel: "H100", Cost: 100},
		},
		HourlyUtil: []analysis.GPUHours{
			{GPU: "GPU-0001", ResourceID: "gpu-a100-1", Start: hour(16, 0), Util: []float64{5, 50, math.NaN()}},
			{GPU: "host-b:0", ResourceID: hostileScript, Start: hour(16, 0), Util: []float64{85, math.NaN(), 97}},
		},
		// train-llm: 1,000 per run on the 16th, 900 on the 17th, nothing on the
		// 18th (a gap), two runs for 2,200 on the 19th (1,100 each); the hostile
		// task has no units and draws no line.
		TaskDaily: []analysis.TaskDay{
			{Day: day(16), Task: "train-llm", Cost: 1000, Units: 1},
			{Day: day(17), Task: "train-llm", Cost: 900, Units: 1},
			{Day: day(19), Task: "train-llm", Cost: 2200, Units: 2},
			{Day: day(16), Task: hostileFormula, Cost: 60},
		},
		GPUsByModel: []analysis.ModelUtil{
			{GPUModel: "A100-80GB", AvgUtilization: 55.5, GPUHours: 1344, GPUHoursMonitored: 1300}, // 1344 − 44 unmonitored
			{GPUModel: "L40S", AvgUtilization: 30, GPUHours: 100, GPUHoursMonitored: 100},
		},
	}
}

// testMeta is a fixed Meta: reports take their time as a parameter.
func testMeta() Meta {
	return Meta{GeneratedAt: time.Date(2026, 11, 23, 1, 30, 0, 0, time.UTC), Version: "v0.1.0-test"}
}

// linesOf is a LineSource over lines in memory.
func linesOf(lines []finops.BillingLine) LineSource {
	return func(yield func(*finops.BillingLine) error) error {
		for i := range lines {
			if err := yield(&lines[i]); err != nil {
				return err
			}
		}
		return nil
	}
}
