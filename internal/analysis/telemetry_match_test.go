package analysis

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// Automatic matching of telemetry hosts to billed resources happens only when
// one resource alone names the host; what matches nothing is listed in data
// quality, GPUs and resources alike.
func TestAutoMatchOnlyWhenUnambiguous(t *testing.T) {
	in := oneDay()
	in.Lines = append(hourlyLines("gpu-1", "2.40", day0, 24), hourlyLines("box-2", "2.40", day0, 24)...)
	// box-2's name is also gpu-2: two resources name host gpu-2.
	in.Lines = append(in.Lines, hourlyLines("gpu-2", "2.40", day0, 24)...)
	// node-3's id is its host and its name the host's first label: one
	// resource, named twice, is still the only one.
	in.Lines = append(in.Lines, hourlyLines("node-3.lab.internal", "2.40", day0, 24)...)
	for i := range in.Lines {
		switch in.Lines[i].ResourceID {
		case "box-2":
			in.Lines[i].ResourceName = "gpu-2"
		case "node-3.lab.internal":
			in.Lines[i].ResourceName = "node-3"
		}
	}
	in.GPUs = []finops.GPUSeries{
		series("GPU-1", "gpu-1.lab.internal", day0, seg{1440, 0}),  // first DNS label matches gpu-1
		series("GPU-2", "gpu-2", day0, seg{1440, 0}),               // gpu-2 and box-2 (name gpu-2): ambiguous
		series("GPU-9", "spare", day0, seg{1440, 50}),              // nobody's
		series("GPU-3", "node-3.lab.internal", day0, seg{1440, 0}), // node-3's, by its id and by its name
	}
	in.GPUs[2].Model = "L4"
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	idle := map[string]float64{}
	for _, rc := range r.ByResource {
		idle[rc.ResourceID] = rc.GPUHoursIdle
	}
	if idle["gpu-1"] != 24 || idle["gpu-2"] != 0 || idle["box-2"] != 0 || idle["node-3.lab.internal"] != 24 {
		t.Errorf("idle hours per resource %v: want gpu-1 matched by its short host name, node-3 by its id, gpu-2 left alone", idle)
	}
	dq := r.DataQuality
	wantGPUs := []UnmatchedGPU{{GPU: "GPU-2", Host: "gpu-2"}, {GPU: "GPU-9", Host: "spare", Model: "L4"}}
	if !slices.Equal(dq.UnmatchedGPUs, wantGPUs) {
		t.Errorf("unmatched GPUs %+v, want %+v", dq.UnmatchedGPUs, wantGPUs)
	}
	if !slices.Equal(dq.UnmatchedResources, []string{"box-2", "gpu-2"}) {
		t.Errorf("unmatched resources %v", dq.UnmatchedResources)
	}
	if !slices.ContainsFunc(dq.Warnings, func(w string) bool {
		return strings.Contains(w, "gpu-2 (box-2, gpu-2) could belong to several billed resources")
	}) {
		t.Errorf("no ambiguity warning in %q", dq.Warnings)
	}
}

// Task runs from Prometheus labels name the GPU host and GPU, not the billed
// resource: they are attributed through the GPUs of the resource that holds
// them, here one configured by host.
func TestTaskRunsMatchedByGPU(t *testing.T) {
	in := oneDay()
	in.Lines = hourlyLines("autodl-a100", "2.40", day0, 24)
	in.Resources = []Resource{{ID: "autodl-a100", Hosts: []string{"gpu-1"}, Team: "ml"}}
	in.TaskRuns = []finops.TaskRun{
		// 00:00–06:00 on GPU-1 (idle then): 360 × 0.04 = 14.40, all idle.
		{Task: "pod-a", Team: "nlp", Resource: "gpu-1", GPUs: []string{"GPU-1"}, Start: day0, End: day0.Add(6 * time.Hour)},
		// A GPU no resource has: stays unattributed, and says so.
		{Task: "pod-b", Resource: "gpu-1", GPUs: []string{"GPU-7"}, Start: day0, End: day0.Add(time.Hour)},
	}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tasks) != 1 || r.Tasks[0].Task != "pod-a" || r.Tasks[0].Team != "nlp" {
		t.Fatalf("tasks %+v", r.Tasks)
	}
	testnum.NearRel(t, "pod-a cost", r.Tasks[0].Cost, 14.40, 1e-6)
	testnum.NearRel(t, "pod-a idle cost", r.Tasks[0].IdleCost, 14.40, 1e-6)
	testnum.NearRel(t, "unallocated", r.Totals.UnallocatedCost, 57.60-14.40, 1e-6)
	if !slices.ContainsFunc(r.DataQuality.Warnings, func(w string) bool { return strings.Contains(w, `tasks on resource "gpu-1"`) }) {
		t.Errorf("pod-b on an unknown GPU is not reported: %q", r.DataQuality.Warnings)
	}
}
