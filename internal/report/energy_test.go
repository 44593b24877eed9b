package report

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
)

// energyResult is handResult with energy: 2.4 kWh over a quarter of the
// billed GPU-minutes (a lower bound) and 2.4 × 436 / 1000 = 1.0464 kg CO₂e
// on gpu-a100-1; the hostile resource has no intensity, so its CO₂e is
// unknown (nil). The renderers show what they are given; the analysis's
// tests check how the numbers are made.
func energyResult(t *testing.T) *analysis.Result {
	r := handResult(t)
	partial := analysis.EnergyUse{KWh: new(2.4), PowerCoverage: 0.25, LowerBound: true, CO2eKg: new(1.0464)}
	r.Energy = &analysis.Energy{PUE: 1, Total: partial,
		ByTeam: []analysis.TeamEnergy{{Team: "ml-train", EnergyUse: partial}},
		ByResource: []analysis.ResourceEnergy{
			{ResourceID: "gpu-a100-1", Provider: "acme", Region: "eu-north-1", Team: "ml-train", GridIntensity: new(436.0), EnergyUse: partial},
			{ResourceID: hostileScript, Provider: "hostcloud", Team: hostileFormula, EnergyUse: analysis.EnergyUse{KWh: new(0.525), PowerCoverage: 1}},
		},
		Tasks: []analysis.TaskEnergy{{Task: "train-llm", Team: "ml-train", EnergyUse: analysis.EnergyUse{KWh: new(0.525), PowerCoverage: 1, CO2eKg: new(0.2289)}}},
	}
	return r
}

// TestEnergyOutputs: the JSON summary, the page and the workbook show the
// energy when the result has it, and nothing of it when it has none.
func TestEnergyOutputs(t *testing.T) {
	sch := reportSchema(t)
	cases := []struct {
		name   string
		result *analysis.Result
		energy bool
	}{{"with energy", energyResult(t), true}, {"without", handResult(t), false}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, doc := decodeJSON(t, c.result)
			if err := validateJSON(sch, doc); err != nil {
				t.Errorf("JSON does not match the schema: %v", err)
			}
			if _, has := m["energy"]; has != c.energy {
				t.Fatalf("JSON has energy: %v, want %v", has, c.energy)
			}
			page := renderHTML(t, c.result, nil)
			if has := strings.Contains(page, `id="h-energy"`); has != c.energy {
				t.Errorf("page has the energy card: %v, want %v", has, c.energy)
			}
			_, f := writeBook(t, c.result)
			if has := raw(t, f, sheetTasks, "J1") == "Energy (kWh)"; has != c.energy {
				t.Errorf("Tasks sheet has the energy column: %v, want %v", has, c.energy)
			}
			if !c.energy {
				return
			}
			// JSON: the numbers as given, an unknown CO₂e as null.
			for _, w := range []struct {
				path []any
				want any
			}{
				{[]any{"energy", "total", "energy_kwh"}, 2.4},
				{[]any{"energy", "total", "power_coverage"}, 0.25},
				{[]any{"energy", "total", "energy_lower_bound"}, true},
				{[]any{"energy", "total", "co2e_kg"}, 1.0464},
				{[]any{"energy", "by_resource", 0, "grid_intensity"}, 436.0},
				{[]any{"energy", "by_resource", 1, "grid_intensity"}, nil},
				{[]any{"energy", "by_resource", 1, "co2e_kg"}, nil},
				{[]any{"energy", "tasks", 0, "energy_kwh"}, 0.525},
			} {
				if got := lookup(t, m, w.path...); got != w.want {
					t.Errorf("%v = %v, want %v", w.path, got, w.want)
				}
			}
			// The page: "≥" on the lower bounds, "unknown" where no intensity applies.
			for _, want := range []string{"≥ 2.40 kWh</strong>, ≥ 1.046 kg CO₂e at PUE 1", "436 g/kWh", "none configured", "0.525 kWh", "unknown"} {
				if !strings.Contains(page, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if strings.Contains(page, "<script>alert(1)") {
				t.Error("the resource id reached the page unescaped")
			}
			// The workbook: train-llm's row (2) has 0.525 kWh, 100 % coverage, 0.2289 kg.
			for cell, want := range map[string]string{"J2": "0.525", "K2": "1", "L2": "0.2289"} {
				if got := raw(t, f, sheetTasks, cell); got != want {
					t.Errorf("Tasks!%s = %q, want %q", cell, got, want)
				}
			}
		})
	}
}
