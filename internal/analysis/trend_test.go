package analysis

import (
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// week45 is 2026-W45 (Mon Nov 2 – Mon Nov 9) with a two-week lookback, so its
// trends cross the previous week (Oct 26 – Nov 2) and the month to date (Nov 1
// – Nov 9). One resource, gpu-2x, of 2 GPUs (GPU-A and GPU-B on host gpu-2x),
// team infra, billed 4.80 an hour from Oct 26 to Nov 9: 2.40 a GPU-hour. Two
// task runs: train (team ml) on GPU-A from Oct 30 to Nov 3, and eval (team
// research) on every GPU on Oct 27 12:00–18:00. gpus is its telemetry.
func week45(gpus []finops.GPUSeries) *Input {
	start := time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC)
	end := day0.AddDate(0, 0, 7)
	return &Input{
		Window:    Window{Start: day0, End: end, Label: "2026-W45"},
		Lookback:  Window{Start: start, End: end},
		Lines:     hourlyLines2("gpu-2x", "4.80", start, 14*24),
		GPUs:      gpus,
		Resources: []Resource{{ID: "gpu-2x", Team: "infra"}},
		Teams:     []Team{{Name: "infra"}, {Name: "ml"}, {Name: "research"}},
		TaskRuns: []finops.TaskRun{
			{Task: "train", Team: "ml", Resource: "gpu-2x", GPUs: []string{"GPU-A"},
				Start: time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)},
			{Task: "eval", Team: "research", Resource: "gpu-2x",
				Start: time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC), End: time.Date(2026, 10, 27, 18, 0, 0, 0, time.UTC)},
		},
		Params: DefaultParams(),
	}
}

// hourlyLines2 is hourlyLines for a resource of 2 GPUs.
func hourlyLines2(res, price string, start time.Time, hours int) []finops.BillingLine {
	out := hourlyLines(res, price, start, hours)
	for i := range out {
		out[i].GPUCount = 2
	}
	return out
}

// gpuB is GPU-B of week45's host: series' second GPU there.
func gpuB(start time.Time, segs ...seg) finops.GPUSeries {
	s := series("GPU-B", "gpu-2x", start, segs...)
	s.Index = 1
	return s
}

// TestTrendsReadNoMinutes: the previous week's and the month's costs are the
// bill's and the tasks', whatever the GPUs did, so the trends (which read no
// minutes: costsOnly) give the same numbers for idle, busy, half-monitored
// and silent GPUs. Expectations by hand, at 2.40 a GPU-hour:
//
//	previous week: 7 d × 24 h × 4.80 = 806.40 for the resource and in total;
//	  train (ml) holds GPU-A Oct 30 – Nov 2, 72 h × 2.40 = 172.80;
//	  eval (research) holds both GPUs 6 h × 4.80 = 28.80;
//	  infra (the resource's team) the rest: 806.40 − 172.80 − 28.80 = 604.80.
//	month to date (Nov 1 – 9, 8 days): ml 48 h × 2.40 = 115.20 (train's Nov 1
//	  and 2), research 0, infra 8 × 24 × 4.80 − 115.20 = 806.40; forecast at
//	  that rate over November's 30 days: × 30 / 8.
func TestTrendsReadNoMinutes(t *testing.T) {
	prevStart := time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		gpus []finops.GPUSeries
	}{
		{"idle all along", []finops.GPUSeries{
			series("GPU-A", "gpu-2x", prevStart, seg{14 * 1440, 1}),
			gpuB(prevStart, seg{14 * 1440, 0})}},
		{"busy all along", []finops.GPUSeries{
			series("GPU-A", "gpu-2x", prevStart, seg{14 * 1440, 90}),
			gpuB(prevStart, seg{14 * 1440, 70})}},
		{"half the time unmonitored, then idle", []finops.GPUSeries{
			series("GPU-A", "gpu-2x", prevStart, repeatDays(14, seg{720, -1}, seg{720, 2})...),
			gpuB(prevStart, repeatDays(14, seg{600, 95}, seg{840, -1})...)}},
		{"no telemetry", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Analyze(week45(tc.gpus))
			if err != nil {
				t.Fatal(err)
			}
			testnum.NearRel(t, "previous total", r.Totals.PreviousCost, 806.40, 1e-6)
			if len(r.ByResource) != 1 {
				t.Fatalf("resources = %+v, want gpu-2x", r.ByResource)
			}
			testnum.NearRel(t, "resource previous cost", r.ByResource[0].PreviousCost, 806.40, 1e-6)
			want := map[string][2]float64{"infra": {604.80, 806.40}, "ml": {172.80, 115.20}, "research": {28.80, 0}}
			if len(r.ByTeam) != len(want) {
				t.Fatalf("teams = %+v, want %v", r.ByTeam, want)
			}
			for _, tm := range r.ByTeam {
				w, ok := want[tm.Team]
				if !ok {
					t.Errorf("team %q, want only %v", tm.Team, want)
					continue
				}
				testnum.NearRel(t, tm.Team+" previous cost", tm.PreviousCost, w[0], 1e-6)
				testnum.NearRel(t, tm.Team+" month to date", tm.MonthToDate, w[1], 1e-6)
				testnum.NearRel(t, tm.Team+" month forecast", tm.MonthForecast, w[1]*30/8, 1e-6)
			}
		})
	}
}
