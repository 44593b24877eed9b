package analysis

import (
	"math"
	"slices"
	"testing"
	"time"
)

// sliceResult is a two-team Result built by hand: nlp owns a100 (and runs a
// task on cv's 4090), cv owns the 4090 and a pool of L40S.
func sliceResult() *Result {
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	budget := 20000.0
	return &Result{
		Period:   Period{Start: day, End: day.AddDate(0, 0, 7), TimeZone: "UTC", Label: "2026-W48"},
		Currency: "CNY",
		Totals:   Totals{Cost: 1000, GPUCost: 900, NonGPUCost: 100, OtherCharges: 20, UnallocatedCost: 50, MonthlySavings: 700},
		ByTeam: []TeamCost{
			{Team: "nlp", Cost: 700, GPUCost: 650, IdleCost: 200, Budget: &budget, PreviousCost: 500, MonthToDate: 2000, MonthForecast: 2600},
			{Team: "cv", Cost: 300, GPUCost: 250, IdleCost: 10},
		},
		ByResource: []ResourceCost{
			{ResourceID: "a100", Provider: "AutoDL", GPUModel: "A100", GPUCount: 2, Team: "nlp", Cost: 600,
				GPUHoursBilled: 336, GPUHoursActive: 120, GPUHoursIdle: 200, GPUHoursUnmonitored: 16,
				IdleCost: 190, UnmonitoredCost: 20, UnallocatedCost: 40, AvgUtilization: 40},
			{ResourceID: "4090", Provider: "AutoDL", GPUModel: "RTX 4090", GPUCount: 1, Team: "cv", Cost: 200,
				GPUHoursBilled: 70, GPUHoursActive: 56, GPUHoursIdle: 14, IdleCost: 10, UnallocatedCost: 10, AvgUtilization: 60},
			{ResourceID: "l40s", Provider: "AutoDL", GPUModel: "L40S", GPUCount: 1, Team: "cv", Cost: 100,
				GPUHoursBilled: 84, GPUHoursActive: 84, AvgUtilization: 90},
		},
		Tasks: []TaskCost{
			{Task: "lora", Team: "nlp", Cost: 400, IdleCost: 30},
			{Task: "eval", Team: "nlp", Cost: 50, IdleCost: 5}, // ran on cv's 4090
			{Task: "detect", Team: "cv", Cost: 100},
		},
		Recommendations: []Recommendation{
			{ResourceID: "a100", Action: ActionSwitchToHourly, MonthlySavings: 600},
			{ResourceID: "4090", Action: ActionStopWhenIdle, MonthlySavings: 100},
		},
		IdleSpans: []IdleSpan{{ResourceID: "a100", GPU: "g0", Hours: 51}, {ResourceID: "4090", GPU: "g1", Hours: 2}},
		Findings: []Finding{
			{Kind: FindingForgotten, ResourceID: "a100", Money: 190},
			{Kind: FindingAllocatedIdle, Team: "nlp", ResourceID: "4090", Money: 5},
			{Kind: FindingUnallocated, ResourceID: "a100", Money: 40},
			{Kind: FindingUnallocated, ResourceID: "4090", Money: 10},
			{Kind: FindingBudget, Team: "cv", Money: 1},
		},
		Pools: []Pool{
			{Provider: "AutoDL", GPUModel: "A100", Resources: 1},
			{Provider: "AutoDL", GPUModel: "L40S", Resources: 1},
		},
		DataQuality: DataQuality{
			Sources:      []SourceStatus{{Name: "bill.csv", Kind: "billing", Status: "ok"}},
			RowsRejected: 3,
			// The team's costs were converted with the same rates: its
			// report must say so as the whole report does.
			ExchangeRates: []ExchangeRate{{Currency: "USD", Rate: 7.1}},
			Warnings: []string{
				"a100 (2×A100) has no utilization data for 16 h",
				"4090 has telemetry from an unknown GPU",
				"3 billing lines have neither EffectiveCost nor BilledCost",
			},
		},
		Daily: []DailyCost{
			{Day: day, Team: "nlp", GPUModel: "A100", Cost: 100},
			{Day: day, Team: "cv", GPUModel: "RTX 4090", Cost: 30},
			{Day: day, Team: "nlp", GPUModel: "RTX 4090", Cost: 7},
		},
		HourlyUtil: []GPUHours{
			{GPU: "g0", ResourceID: "a100", Start: day, Util: []float64{5}},
			{GPU: "g1", ResourceID: "4090", Start: day, Util: []float64{80}},
		},
		GPUsByModel: []ModelUtil{{GPUModel: "A100", AvgUtilization: 40, GPUHours: 336}},
		TaskDaily: []TaskDay{
			{Day: day, Task: "lora", Cost: 50, Units: 1},
			{Day: day, Task: "detect", Cost: 10, Units: 100},
		},
	}
}

func TestForTeam(t *testing.T) {
	r := sliceResult()
	s := r.ForTeam("NLP") // case-insensitive
	if s == nil {
		t.Fatal("ForTeam(nlp) = nil")
	}
	ids := func(n int, f func(int) string) []string {
		var out []string
		for i := range n {
			out = append(out, f(i))
		}
		return out
	}
	check := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	check("teams", ids(len(s.ByTeam), func(i int) string { return s.ByTeam[i].Team }), []string{"nlp"})
	check("resources", ids(len(s.ByResource), func(i int) string { return s.ByResource[i].ResourceID }), []string{"a100"})
	check("tasks", ids(len(s.Tasks), func(i int) string { return s.Tasks[i].Task }), []string{"lora", "eval"})
	check("recommendations", ids(len(s.Recommendations), func(i int) string { return s.Recommendations[i].ResourceID }), []string{"a100"})
	check("idle spans", ids(len(s.IdleSpans), func(i int) string { return s.IdleSpans[i].ResourceID }), []string{"a100"})
	check("findings", ids(len(s.Findings), func(i int) string { return s.Findings[i].Kind + "/" + s.Findings[i].ResourceID }),
		[]string{"forgotten_instance/a100", "allocated_idle/4090", "unallocated/a100"})
	check("pools", ids(len(s.Pools), func(i int) string { return s.Pools[i].GPUModel }), []string{"A100"})
	check("daily", ids(len(s.Daily), func(i int) string { return s.Daily[i].GPUModel }), []string{"A100", "RTX 4090"})
	check("hourly", ids(len(s.HourlyUtil), func(i int) string { return s.HourlyUtil[i].GPU }), []string{"g0"})
	check("task daily", ids(len(s.TaskDaily), func(i int) string { return s.TaskDaily[i].Task }), []string{"lora"})
	check("warnings", s.DataQuality.Warnings, []string{
		"a100 (2×A100) has no utilization data for 16 h",
		"3 billing lines have neither EffectiveCost nor BilledCost",
	})
	if s.DataQuality.RowsRejected != 3 || len(s.DataQuality.Sources) != 1 {
		t.Errorf("data quality sources/rejected not kept: %+v", s.DataQuality)
	}
	if got := s.DataQuality.ExchangeRates; !slices.Equal(got, []ExchangeRate{{Currency: "USD", Rate: 7.1}}) {
		t.Errorf("exchange rates = %+v, want the report's 1 USD = 7.1", got)
	}

	// Totals: team figures from its row, hours from its resources.
	tt := s.Totals
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"cost", tt.Cost, 700},
		{"gpu cost", tt.GPUCost, 650},
		{"non-gpu cost", tt.NonGPUCost, 50},
		{"idle cost", tt.IdleCost, 200},
		{"other charges", tt.OtherCharges, 0},
		{"billed", tt.GPUHoursBilled, 336},
		{"idle hours", tt.GPUHoursIdle, 200},
		{"unmonitored cost", tt.UnmonitoredCost, 20},
		{"avg util", tt.AvgGPUUtilization, 40},
		{"allocated idle", tt.AllocatedIdleCost, 35},
		{"unallocated", tt.UnallocatedCost, 40}, // a100's, its only resource
		{"savings", tt.MonthlySavings, 600},
		{"unmonitored share", s.DataQuality.UnmonitoredShare, 16.0 / 336},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(s.GPUsByModel) != 1 || s.GPUsByModel[0].GPUModel != "A100" || s.GPUsByModel[0].GPUHours != 336 {
		t.Errorf("GPUsByModel = %+v", s.GPUsByModel)
	}

	// The slice owns its data: changing it leaves the org result alone.
	*s.ByTeam[0].Budget = 1
	s.ByResource[0].Cost = -1
	if *r.ByTeam[0].Budget != 20000 || r.ByResource[0].Cost != 600 {
		t.Error("ForTeam shares memory with the original result")
	}
}

func TestForTeamCV(t *testing.T) {
	s := sliceResult().ForTeam("cv")
	if len(s.ByResource) != 2 || len(s.Pools) != 1 || s.Pools[0].GPUModel != "L40S" {
		t.Errorf("cv slice: resources %d, pools %+v", len(s.ByResource), s.Pools)
	}
	// 4090 at 60% over 70 monitored hours, L40S at 90% over 84.
	want := (60*70 + 90*84) / 154.0
	if math.Abs(s.Totals.AvgGPUUtilization-want) > 1e-9 {
		t.Errorf("avg util = %v, want %v", s.Totals.AvgGPUUtilization, want)
	}
	if s.Totals.MonthlySavings != 100 {
		t.Errorf("savings = %v", s.Totals.MonthlySavings)
	}
}

func TestForTeamUnknown(t *testing.T) {
	if s := sliceResult().ForTeam("finance"); s != nil {
		t.Errorf("unknown team gave %+v", s)
	}
	var r *Result
	if r.ForTeam("nlp") != nil {
		t.Error("nil result gave a slice")
	}
}
