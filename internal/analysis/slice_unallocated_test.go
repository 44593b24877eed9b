package analysis

import (
	"fmt"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestForTeamUnallocated is issue 33's case: nlp held its A100s with no task
// for 208 of their 336 GPU-hours, yet every team slice said unallocated 0
// (it summed findings of a kind nothing made) while the fleet's was not.
// A slice's unallocated cost is now its resources' GPU time no task held, as
// the fleet's is over every resource.
//
// By hand, over the week from Monday 2 November 2026:
//
//	nlp-a100   2 GPUs × 168 h = 336 GPU-h at 12.50; lora holds both 64 h = 128
//	           → 336 − 128 = 208 GPU-h unheld × 12.50 = 2,600.00
//	cv-4090    1 GPU  × 168 h at 3.00; detect holds it all week → 0
//	search-l4  1 GPU  × 168 h at 5.00; rank holds it 100 h → 68 × 5.00 = 340.00
//	fleet      2,600 + 0 + 340 = 2,940.00
func TestForTeamUnallocated(t *testing.T) {
	week := Window{Start: day0, End: day0.AddDate(0, 0, 7), Label: "2026-W45"}
	in := &Input{Window: week, Lookback: week, Params: DefaultParams(), SkipTrends: true}
	bill := func(id, team string, gpus int, perGPU float64) {
		for h := range 168 {
			s := day0.Add(time.Duration(h) * time.Hour)
			l := gpuLine(id, finops.ModeHourly, fmt.Sprintf("%.2f", perGPU*float64(gpus)), s, s.Add(time.Hour), gpus)
			l.Tags = map[string]string{"team": team}
			in.Lines = append(in.Lines, l)
		}
	}
	run := func(task, team, id string, hours int) {
		in.TaskRuns = append(in.TaskRuns, finops.TaskRun{Task: task, Team: team, Resource: id,
			Start: day0, End: day0.Add(time.Duration(hours) * time.Hour)})
	}
	bill("nlp-a100", "nlp", 2, 12.50)
	bill("cv-4090", "cv", 1, 3.00)
	bill("search-l4", "search", 1, 5.00)
	run("lora", "nlp", "nlp-a100", 64)
	run("detect", "cv", "cv-4090", 168)
	run("rank", "search", "search-l4", 100)

	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "fleet unallocated", r.Totals.UnallocatedCost, 2940, 1e-6)
	sum := 0.0
	for _, c := range []struct {
		team string
		want float64
	}{{"nlp", 208 * 12.50}, {"cv", 0}, {"search", 68 * 5.00}} {
		s := r.ForTeam(c.team)
		if s == nil {
			t.Fatalf("no slice for %s", c.team)
		}
		testnum.NearRel(t, c.team+" unallocated", s.Totals.UnallocatedCost, c.want, 1e-6)
		sum += s.Totals.UnallocatedCost
	}
	testnum.NearRel(t, "Σ teams' unallocated", sum, r.Totals.UnallocatedCost, 1e-6)
}
