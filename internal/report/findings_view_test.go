package report

import (
	"reflect"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
)

func TestFindingViews(t *testing.T) {
	noTel := func(id string, money float64) analysis.Finding {
		return analysis.Finding{Kind: analysis.FindingNoTelemetry, Severity: "low", ResourceID: id, Team: "cv", Money: money, Text: id + " has no data"}
	}
	r := &analysis.Result{
		Currency: "USD",
		ByResource: []analysis.ResourceCost{
			{ResourceID: "gpu-a", Provider: "autodl", GPUModel: "A100"},
			{ResourceID: "gpu-b", Provider: "autodl", GPUModel: "A100"},
			{ResourceID: "t4-1", Provider: "aws", GPUModel: "T4"},
			{ResourceID: "t4-2", Provider: "aws", GPUModel: "T4"},
			{ResourceID: "t4-3", Provider: "aws", GPUModel: "T4"},
			{ResourceID: "l4-1", Provider: "gcp", GPUModel: "L4"},
		},
		Recommendations: []analysis.Recommendation{
			{ResourceID: "gpu-a", Action: analysis.ActionSwitchToHourly, MonthlySavings: 400},
			{ResourceID: "gpu-b", Action: analysis.ActionStopWhenIdle, MonthlySavings: 70},
		},
		Findings: []analysis.Finding{
			{Kind: analysis.FindingRecommendation, Severity: "high", ResourceID: "gpu-a", Money: 400},
			{Kind: analysis.FindingForgotten, Severity: "high", ResourceID: "gpu-a", Money: 200},
			noTel("t4-1", 10),
			{Kind: analysis.FindingRecommendation, Severity: "medium", ResourceID: "gpu-b", Money: 70},
			noTel("t4-2", 20),
			noTel("l4-1", 5),
			noTel("t4-3", 30),
		},
	}
	vs := findingViews(r)

	// By hand: the three T4s fold into line 3 (10+20+30 = 60); the lone L4
	// stays; gpu-a's saving (#1) and its forgotten idle time (#2) overlap.
	var titles []string
	for _, v := range vs {
		titles = append(titles, v.Title)
	}
	want := []string{"Switch to hourly", "Forgotten instance", "No telemetry", "Stop when idle", "No telemetry"}
	if !reflect.DeepEqual(titles, want) {
		t.Fatalf("titles = %q, want %q", titles, want)
	}
	if g := vs[2]; g.Money != 60 || !reflect.DeepEqual(g.Resources, []string{"t4-1", "t4-2", "t4-3"}) || g.ResourceID != "" {
		t.Errorf("folded line = %+v, want t4-1..3 with 60", g)
	}
	if want := "3 aws T4 resources have no utilization data (t4-1, t4-2, t4-3): $60.00 of GPU time cannot be judged; add their hosts to the telemetry sources"; vs[2].Text != want {
		t.Errorf("folded text = %q, want %q", vs[2].Text, want)
	}
	if vs[4].ResourceID != "l4-1" || vs[4].Resources != nil {
		t.Errorf("a lone no-telemetry finding was folded: %+v", vs[4])
	}
	if vs[0].Overlap == "" || vs[1].Overlap == "" {
		t.Errorf("gpu-a's saving and idle time do not say they overlap: %q / %q", vs[0].Overlap, vs[1].Overlap)
	}
	if want := "Overlaps #2 (Forgotten instance): the same idle hours; this is what removing them saves a month."; vs[0].Overlap != want {
		t.Errorf("overlap = %q, want %q", vs[0].Overlap, want)
	}
	if vs[3].Overlap != "" {
		t.Errorf("gpu-b has no idle finding, yet: %q", vs[3].Overlap)
	}
}
