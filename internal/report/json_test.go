package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/golden"
)

func decodeJSON(t *testing.T, r *analysis.Result) (map[string]any, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r, Meta{Version: "v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, buf.Bytes())
	}
	return m, buf.Bytes()
}

// lookup walks a decoded JSON document by object keys and array indexes.
func lookup(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, k)
			}
			if v, ok = m[k]; !ok {
				t.Fatalf("%v: missing key %q", path, k)
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("%v: no element %d", path, k)
			}
			v = a[k]
		}
	}
	return v
}

func TestWriteJSONHasContractKeys(t *testing.T) {
	m, _ := decodeJSON(t, handResult(t))
	// The keys product.md §JSON summary promises, per object.
	objects := []struct {
		path []any
		keys []string
	}{
		{nil, []string{"period", "currency", "totals", "by_team", "by_resource", "tasks", "recommendations", "data_quality"}},
		{[]any{"period"}, []string{"start", "end", "timezone"}},
		{[]any{"totals"}, []string{"cost", "gpu_cost", "non_gpu_cost", "gpu_hours_billed", "gpu_hours_active",
			"gpu_hours_idle", "gpu_hours_unmonitored", "idle_cost", "unmonitored_cost", "unallocated_cost",
			"unused_commitment_cost", "avg_gpu_utilization"}},
		{[]any{"by_team", 0}, []string{"team", "cost", "idle_cost", "budget"}},
		{[]any{"by_resource", 0}, []string{"resource_id", "provider", "gpu_model", "gpu_count", "pricing", "team", "cost",
			"gpu_hours_billed", "gpu_hours_active", "gpu_hours_idle", "idle_cost", "avg_utilization"}},
		{[]any{"tasks", 0}, []string{"task", "team", "kind", "cost", "gpu_hours", "idle_cost", "units", "unit", "unit_cost"}},
		{[]any{"recommendations", 0}, []string{"resource_id", "action", "current_monthly_cost", "recommended_monthly_cost",
			"monthly_savings", "active_hours_per_month", "breakeven_hours_per_month", "confidence", "reason"}},
		{[]any{"data_quality"}, []string{"sources", "rows_rejected", "unmonitored_share", "warnings"}},
	}
	for _, o := range objects {
		obj, ok := lookup(t, m, o.path...).(map[string]any)
		if !ok {
			t.Fatalf("%v is not an object", o.path)
		}
		for _, k := range o.keys {
			if _, ok := obj[k]; !ok {
				t.Errorf("%v: missing key %q", o.path, k)
			}
		}
	}

	values := []struct {
		path []any
		want any
	}{
		{[]any{"currency"}, "CNY"},
		{[]any{"period", "timezone"}, "Asia/Shanghai"},
		{[]any{"period", "start"}, "2026-11-16T00:00:00+08:00"},
		{[]any{"period", "end"}, "2026-11-23T00:00:00+08:00"},
		{[]any{"totals", "gpu_hours_idle"}, 340.0},
		{[]any{"totals", "cost"}, 4500.0},
		{[]any{"totals", "idle_cost"}, 830.0},
		{[]any{"by_team", 0, "budget"}, 20000.0},
		{[]any{"by_team", 1, "budget"}, nil},
		{[]any{"by_team", 1, "team"}, hostileFormula},
		{[]any{"by_resource", 1, "resource_id"}, hostileScript},
		{[]any{"idle_spans", 0, "start"}, "2026-11-17T01:00:00Z"},
		{[]any{"data_quality", "rows_rejected"}, 2.0},
	}
	for _, v := range values {
		if got := lookup(t, m, v.path...); got != v.want {
			t.Errorf("%v = %#v, want %#v", v.path, got, v.want)
		}
	}
	// Chart series are not part of the contract.
	for _, k := range []string{"Daily", "daily", "HourlyUtil", "GPUsByModel"} {
		if _, ok := m[k]; ok {
			t.Errorf("chart series %q leaked into the JSON", k)
		}
	}
}

func TestWriteJSONEmptyListsAreArrays(t *testing.T) {
	m, raw := decodeJSON(t, &analysis.Result{Currency: "USD"})
	for _, path := range [][]any{
		{"by_team"}, {"by_resource"}, {"tasks"}, {"recommendations"}, {"idle_spans"},
		{"data_quality", "sources"}, {"data_quality", "warnings"},
	} {
		a, ok := lookup(t, m, path...).([]any)
		if !ok || len(a) != 0 {
			t.Errorf("%v = %#v, want []", path, lookup(t, m, path...))
		}
	}
	if bytes.Contains(raw, []byte("null")) {
		t.Errorf("empty result has a null:\n%s", raw)
	}
}

func TestWriteJSONDoesNotModifyResult(t *testing.T) {
	r := &analysis.Result{}
	decodeJSON(t, r)
	if r.ByTeam != nil || r.DataQuality.Warnings != nil {
		t.Error("WriteJSON changed the caller's Result")
	}
}

func TestWriteJSONRoundsMoneyToMinorUnit(t *testing.T) {
	a, b := 0.1, 0.2 // variables: constant arithmetic would be exact
	budget := 999.999
	r := &analysis.Result{
		Currency: "USD",
		Totals:   analysis.Totals{Cost: a + b, IdleCost: 13999.999999991009, GPUHoursIdle: 1.23456789},
		ByTeam:   []analysis.TeamCost{{Team: "nlp", Cost: 1.005001, Budget: &budget}},
		Tasks:    []analysis.TaskCost{{Task: "t", Cost: 2.0049, UnitCost: 0.000123456789}},
		Findings: []analysis.Finding{{Kind: analysis.FindingForgotten, Money: 7.777}},
	}
	_, raw := decodeJSON(t, r)
	// By hand: cents for USD; hours are not money; unit cost keeps 6 significant digits.
	for _, want := range []string{`"cost": 0.3,`, `"idle_cost": 14000,`, `"gpu_hours_idle": 1.23456789,`,
		`"cost": 1.01,`, `"budget": 1000`, `"cost": 2,`, `"unit_cost": 0.000123457`, `"money": 7.78,`,
		`"schema_version": "2"`, `"version": "v1.2.3"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("missing %s in\n%s", want, raw)
		}
	}
	if *r.ByTeam[0].Budget != 999.999 || r.Tasks[0].Cost != 2.0049 || r.Findings[0].Money != 7.777 {
		t.Error("WriteJSON rounded the caller's Result")
	}
}

func TestGoldenJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, handResult(t), Meta{Version: "v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "result.golden.json", buf.Bytes())
}
