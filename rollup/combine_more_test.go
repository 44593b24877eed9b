package rollup

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/report"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xuri/excelize/v2"
)

// TestCombineCollidingIDs: a resource ID two shards both have gets the
// shard's name in front, in every list that names it; the others keep theirs.
func TestCombineCollidingIDs(t *testing.T) {
	b := euShard() // gpu-a and gpu-b
	b.ByResource[1].ResourceID = "gpu-x"
	b.Findings[1].ResourceID = "gpu-x"
	b.DataQuality.UnmatchedResources = []string{"gpu-a"}
	b.Recommendations = []analysis.Recommendation{{ResourceID: "gpu-a", Action: analysis.ActionKeep}}
	shards, err := load(t, map[string][]byte{"eu": summaryBytes(t, euShard()), "us": summaryBytes(t, b)}, "eu", "us")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Combine(context.Background(), shards, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, rc := range r.ByResource {
		ids = append(ids, rc.ResourceID)
	}
	if want := []string{"eu/gpu-a", "gpu-b", "us/gpu-a", "gpu-x"}; !slices.Equal(ids, want) {
		t.Errorf("resources %q, want %q (in shard order)", ids, want)
	}
	if r.IdleSpans[1].ResourceID != "us/gpu-a" || r.Recommendations[0].ResourceID != "us/gpu-a" ||
		!slices.Equal(r.DataQuality.UnmatchedResources, []string{"us/gpu-a"}) {
		t.Errorf("spans %+v, recommendations %+v, unmatched %q: want us/gpu-a", r.IdleSpans, r.Recommendations, r.DataQuality.UnmatchedResources)
	}
	want := "Shard us: resource IDs another shard also has are shown with the shard's name: gpu-a → us/gpu-a"
	if !slices.Contains(r.DataQuality.Warnings, want) {
		t.Errorf("warnings %q: want %q", r.DataQuality.Warnings, want)
	}
}

// TestCombineIncomplete: one incomplete shard makes the rollup incomplete,
// naming the shard; previous-period cost is kept only when every shard has it.
func TestCombineIncomplete(t *testing.T) {
	a := euShard()
	a.DataQuality.Incomplete = []string{"Source lab is stale"}
	a.Totals.PreviousCost = 80
	a.ByTeam[0].PreviousCost = 80
	shards, err := load(t, map[string][]byte{"eu": summaryBytes(t, a), "cn": summaryBytes(t, cnShard())}, "eu", "cn")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Combine(context.Background(), shards, Options{Rates: []Rate{usdcny(t)}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.DataQuality.Incomplete, []string{"Shard eu: Source lab is stale"}) {
		t.Errorf("incomplete %q", r.DataQuality.Incomplete)
	}
	if !r.Shards[0].Incomplete || r.Shards[1].Incomplete {
		t.Errorf("shards %+v: want eu incomplete, cn not", r.Shards)
	}
	if r.Totals.PreviousCost != 0 || r.ByTeam[0].PreviousCost != 0 {
		t.Errorf("previous cost %v, nlp's %v: want none, cn has none", r.Totals.PreviousCost, r.ByTeam[0].PreviousCost)
	}
	containsAll(t, "warnings", strings.Join(r.DataQuality.Warnings, "\n"), "No previous-period cost is shown", "shards cn have none")
}

// TestCombinedOutputs: the rollup's result renders as every report does: its
// JSON matches docs/finops-report.schema.json (shards included), its
// workbook has the Shards sheet, and a hostile shard or team name is text
// in the HTML page, never markup.
func TestCombinedOutputs(t *testing.T) {
	const evilShard, evilTeam = `<script>alert("shard")</script>`, `<img src=x onerror=alert(1)>`
	b := cnShard()
	b.ByTeam[0].Team, b.ByResource[0].Team, b.Findings[0].Team = evilTeam, evilTeam, evilTeam
	dir := t.TempDir()
	paths := []string{writeFile(t, dir, "eu.json", summaryBytes(t, euShard())), writeFile(t, dir, "cn.json", summaryBytes(t, b))}
	shards, err := Load(context.Background(), paths, []string{"eu", evilShard})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Combine(context.Background(), shards, Options{Rates: []Rate{usdcny(t)}})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	files, err := report.WriteAll(out, r, []string{"xlsx", "html", "json"}, report.Meta{Version: "test"})
	if err != nil || len(files) != 3 {
		t.Fatalf("wrote %q: %v", files, err)
	}
	html := readFile(t, filepath.Join(out, "finops-2026-W48.html"))
	for _, bad := range []string{evilShard, evilTeam, "<script>alert", "<img src=x"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page carries %q unescaped", bad)
		}
	}
	containsAll(t, "page", html, "&lt;script&gt;alert(&#34;shard&#34;)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;",
		"<th>Shard</th>", "<td>eu</td>")

	wb, err := excelize.OpenFile(filepath.Join(out, "finops-2026-W48.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	rows, err := wb.GetRows("Shards")
	if err != nil || len(rows) != 3 {
		t.Fatalf("Shards sheet rows %q: %v", rows, err)
	}
	// The shard's name is text in its cell; cn's coverage 0 of 300 GPU-hours.
	if got := rows[2][:3]; !slices.Equal(got, []string{evilShard, "2026-W48", "CNY"}) || rows[2][7] != "no" || rows[1][0] != "eu" {
		t.Errorf("Shards sheet %q", rows)
	}
	if sheets := wb.GetSheetList(); sheets[1] != "Shards" {
		t.Errorf("sheets %q: want Shards after Summary", sheets)
	}

	c := jsonschema.NewCompiler()
	sch, err := c.Compile(must(filepath.Abs(filepath.Join("..", "docs", "finops-report.schema.json"))))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(readFile(t, filepath.Join(out, "finops-2026-W48.json")))))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("the rollup's JSON does not match the schema: %v", err)
	}
	// A rollup's summary can itself be rolled up: the shards are dropped, by name.
	again, err := Read(context.Background(), filepath.Join(out, "finops-2026-W48.json"), "org")
	if err != nil || !slices.Equal(again.Dropped, []string{"shards"}) {
		t.Errorf("reading the rollup back: dropped %q, %v", again.Dropped, err)
	}
	if len(again.Result.Shards) != 2 || again.Result.Shards[1].Name != evilShard {
		t.Errorf("shards in the JSON %+v", again.Result.Shards)
	}
}

// TestRollupKnowsEveryField fails when a field is added to what the
// rollup combines field by field: the new field must be combined in
// combine.go (and converted in convert.go if it is money), or dropped by
// name in Read, and this list extended.
func TestRollupKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		v    any
		want []string
	}{
		{analysis.Result{}, []string{"Period", "Currency", "Totals", "ByTeam", "ByResource", "Tasks", "Recommendations",
			"IdleSpans", "Findings", "Pools", "DataQuality", "Watch", "Allocation", "Chargeback", "Energy", "Shards",
			"Daily", "HourlyUtil", "GPUsByModel", "TaskDaily"}},
		{analysis.Totals{}, []string{"Cost", "GPUCost", "NonGPUCost", "OtherCharges", "GPUHoursBilled", "GPUHoursActive",
			"GPUHoursIdle", "GPUHoursUnmonitored", "IdleCost", "UnmonitoredCost", "UnallocatedCost", "AllocatedIdleCost",
			"UnusedCommitmentCost", "AvgGPUUtilization", "MonthlySavings", "PreviousCost"}},
		{analysis.TeamCost{}, []string{"Team", "Cost", "GPUCost", "IdleCost", "Budget", "PreviousCost", "MonthToDate",
			"MonthForecast", "GPUHoursBilled", "GPUHoursMonitored"}},
		{analysis.DataQuality{}, []string{"Sources", "RowsRejected", "UnmonitoredShare", "Coverage", "MinCoverage",
			"Incomplete", "Warnings", "Clipped", "UnmatchedGPUs", "UnmatchedResources", "SamplesDropped"}},
		// Copied whole, money converted field by field.
		{analysis.ResourceCost{}, []string{"ResourceID", "ResourceName", "Provider", "GPUModel", "GPUCount", "Pricing", "Team",
			"Cost", "GPUHoursBilled", "GPUHoursActive", "GPUHoursIdle", "GPUHoursUnmonitored", "IdleCost", "UnmonitoredCost",
			"AvgUtilization", "PreviousCost", "Bands", "SaturatedHours"}},
		{analysis.TaskCost{}, []string{"Task", "Team", "Kind", "Cost", "GPUHours", "IdleCost", "Units", "Unit", "UnitCost"}},
		{analysis.Recommendation{}, []string{"ResourceID", "GPUModel", "GPUCount", "CurrentMode", "Action", "CurrentMonthlyCost",
			"RecommendedMonthlyCost", "MonthlySavings", "ActiveHoursPerMonth", "BreakevenHoursPerMonth", "Confidence", "Reason"}},
		{analysis.IdleSpan{}, []string{"ResourceID", "GPU", "Start", "End", "Hours", "Cost"}},
		{analysis.Finding{}, []string{"Kind", "Severity", "ResourceID", "Team", "Money", "Text"}},
	} {
		typ := reflect.TypeOf(c.v)
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("analysis.%s has fields\n%q\nthe rollup knows\n%q\ncombine (combine.go) or convert (convert.go) the new ones, "+
				"or drop them by name (read.go), and update docs/ROLLUP.md", typ.Name(), got, c.want)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
