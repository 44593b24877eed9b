package analysis

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestPartialTelemetry: a resource billed for 8 GPUs of which 4 report
// (metrics.md §Partial telemetry). Each reporting GPU is busy 6 h of the day
// at 80 % and idle 18 h; the bill is 24 hourly lines of 8 GPUs at 19.20 (0.04
// a GPU-minute).
//
// By hand: active 4 × 6 = 24 GPU-h, idle 4 × 18 = 72, unmonitored 4 × 24 =
// 96 (the silent GPUs are unknown, never idle). A is per reporting GPU:
// 24 / 4 = 6 h in the one-day lookback, A30 = 6 × 30 = 180 h/month (counting
// the silent GPUs as never busy would say 90). The unmonitored share is 50 %:
// confidence low. The data-quality box says 8 billed, 4 report.
//
// Tasks: t1 names GPU-5, which reports nothing: it takes a silent slot, its
// 2 hours cost 120 × 0.04 = 4.80 and a warning says its idle time is
// unknown. t2 names GPU-9, which reports for another resource: not counted
// to t2 on box, and warned.
func TestPartialTelemetry(t *testing.T) {
	in := oneDay()
	in.Lines = nil
	for h := range 24 {
		s := day0.Add(time.Duration(h) * time.Hour)
		in.Lines = append(in.Lines, gpuLine("box", finops.ModeHourly, "19.20", s, s.Add(time.Hour), 8))
	}
	in.Lines = append(in.Lines, hourlyLines("other", "2.40", day0, 24)...)
	in.GPUs = nil
	for _, k := range []string{"GPU-1", "GPU-2", "GPU-3", "GPU-4"} {
		in.GPUs = append(in.GPUs, series(k, "box", day0, seg{360, 80}, seg{1080, 0}))
	}
	in.GPUs = append(in.GPUs, series("GPU-9", "other", day0, seg{1440, 50}))
	in.TaskRuns = []finops.TaskRun{
		{Line: 2, Task: "t1", Resource: "box", GPUs: []string{"GPU-5"}, Start: day0.Add(8 * time.Hour), End: day0.Add(10 * time.Hour)},
		{Line: 3, Task: "t2", Resource: "box", GPUs: []string{"GPU-9"}, Start: day0.Add(8 * time.Hour), End: day0.Add(10 * time.Hour)},
	}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(r.ByResource, func(rc ResourceCost) bool { return rc.ResourceID == "box" })
	if i < 0 {
		t.Fatalf("no box in %+v", r.ByResource)
	}
	rc := r.ByResource[i]
	testnum.NearRel(t, "active h", rc.GPUHoursActive, 24, 1e-6)
	testnum.NearRel(t, "idle h", rc.GPUHoursIdle, 72, 1e-6)
	testnum.NearRel(t, "unmonitored h", rc.GPUHoursUnmonitored, 96, 1e-6)

	j := slices.IndexFunc(r.Recommendations, func(rec Recommendation) bool { return rec.ResourceID == "box" })
	rec := r.Recommendations[j]
	testnum.NearRel(t, "A30", rec.ActiveHoursPerMonth, 180, 1e-6)
	if rec.Confidence != "low" || !strings.Contains(rec.Reason, "4 of 8 GPUs report") {
		t.Errorf("recommendation %+v: want confidence low and the reason saying 4 of 8 GPUs report", rec)
	}

	cost := map[string]float64{}
	for _, tc := range r.Tasks {
		cost[tc.Task] = tc.Cost
	}
	testnum.NearRel(t, "t1 cost", cost["t1"], 4.80, 1e-6)
	testnum.NearRel(t, "t2 cost", cost["t2"], 0, 1e-6)

	for _, want := range []string{
		"box: 8 GPUs billed, 4 report telemetry",
		"task t1 ran on GPU GPU-5 of box, which reports no telemetry",
		"task t2 names GPU GPU-9 on box, but that GPU reports for other",
	} {
		if !slices.ContainsFunc(r.DataQuality.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("no warning %q in %q", want, r.DataQuality.Warnings)
		}
	}
}
