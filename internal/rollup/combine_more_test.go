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

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/report"
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
	sch, err := c.Compile(must(filepath.Abs(filepath.Join("..", "..", "docs", "finops-report.schema.json"))))
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

// TestRollupConvertsEveryAmount: the lists Combine concatenates carry
// their structs whole, new fields included, so a new amount of money in
// one of them would reach the rollup unconverted from another currency.
// It fails when a float is added to them: if it is money, visit it in
// report.EachMoney (report/json_money.go), which converted uses, and list
// it here either way.
func TestRollupConvertsEveryAmount(t *testing.T) {
	for _, c := range []struct {
		v               any
		money, notMoney []string
	}{
		{analysis.ResourceCost{}, []string{"Cost", "IdleCost", "UnmonitoredCost", "UnallocatedCost", "PreviousCost"},
			[]string{"GPUHoursBilled", "GPUHoursActive", "GPUHoursIdle", "GPUHoursUnmonitored", "AvgUtilization",
				"Bands.Idle", "Bands.Low", "Bands.Fair", "Bands.Target", "Bands.Saturated", "SaturatedHours"}},
		{analysis.TaskCost{}, []string{"Cost", "IdleCost", "UnitCost"}, []string{"GPUHours", "GPUHoursMonitored", "Units"}},
		{analysis.Recommendation{}, []string{"CurrentMonthlyCost", "RecommendedMonthlyCost", "MonthlySavings"},
			[]string{"ActiveHoursPerMonth", "BreakevenHoursPerMonth"}},
		{analysis.IdleSpan{}, []string{"Cost"}, []string{"Hours"}},
		{analysis.Finding{}, []string{"Money"}, nil},
	} {
		typ := reflect.TypeOf(c.v)
		got := floatFields(typ, "")
		want := append(slices.Clone(c.money), c.notMoney...)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("analysis.%s has the floats\n%q\nthe rollup knows\n%q\nvisit a new amount of money in report.EachMoney (report/json_money.go) "+
				"and list the new floats here", typ.Name(), got, want)
		}
		// Each amount listed is converted: 1.00 at 2.5 is 2.50.
		r := analysis.Result{Currency: "USD"}
		v := reflect.New(typ).Elem()
		for _, f := range c.money {
			v.FieldByName(f).SetFloat(1)
		}
		switch x := v.Interface().(type) {
		case analysis.ResourceCost:
			r.ByResource = append(r.ByResource, x)
		case analysis.TaskCost:
			r.Tasks = append(r.Tasks, x)
		case analysis.Recommendation:
			r.Recommendations = append(r.Recommendations, x)
		case analysis.IdleSpan:
			r.IdleSpans = append(r.IdleSpans, x)
		case analysis.Finding:
			r.Findings = append(r.Findings, x)
		}
		out := converted(r, decimal.RequireFromString("2.5"), "EUR")
		var ov reflect.Value
		switch {
		case len(out.ByResource) > 0:
			ov = reflect.ValueOf(out.ByResource[0])
		case len(out.Tasks) > 0:
			ov = reflect.ValueOf(out.Tasks[0])
		case len(out.Recommendations) > 0:
			ov = reflect.ValueOf(out.Recommendations[0])
		case len(out.IdleSpans) > 0:
			ov = reflect.ValueOf(out.IdleSpans[0])
		default:
			ov = reflect.ValueOf(out.Findings[0])
		}
		for _, f := range c.money {
			if g := ov.FieldByName(f).Float(); g != 2.5 {
				t.Errorf("%s.%s converted to %v, want 2.5", typ.Name(), f, g)
			}
		}
	}
}

func floatFields(typ reflect.Type, prefix string) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch f.Type.Kind() {
		case reflect.Float64:
			out = append(out, prefix+f.Name)
		case reflect.Struct:
			out = append(out, floatFields(f.Type, prefix+f.Name+".")...)
		}
	}
	return out
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
