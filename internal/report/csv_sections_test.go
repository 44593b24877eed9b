package report

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// csvSectionsResult is csvResult with the four optional sections, written
// by hand: two trend weeks, a chargeback of its 1,234.50 (unassigned's
// 100.00 spread: 60.00 + 40.00 away; -nlp 1,134.50 + 60 + 20 = 1,214.50,
// vision 0 + 20 = 20.00; 0 + 1,214.50 + 20 = 1,234.50), an allocation by a
// tag whose value is a formula (987.60 + 246.90 = 1,234.50, shares 0.8 and
// 0.2) and the energy of one resource, 0.525 kWh at PUE 1.2 and 436 g/kWh:
// 0.525 × 1.2 × 436 / 1000 = 0.27468 kg, the other resource drawing nothing
// where no intensity applies.
func csvSectionsResult(t *testing.T) *analysis.Result {
	r := csvResult(t)
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	w47 := time.Date(2026, 11, 16, 0, 0, 0, 0, sh).UTC()
	r.Trend = &analysis.Trend{WeeksAsked: 2, Weeks: []analysis.TrendWeek{
		{Label: "2026-W47", Start: w47, End: r.Period.Start, Cost: 1000, IdleCost: 250.5, Coverage: 0.5, IdleLowerBound: true,
			Anomaly: "not_enough_history", Teams: []analysis.TrendTeam{{Team: "-nlp", Cost: 1000, IdleCost: 250.5, Coverage: 0.5,
				IdleLowerBound: true, Anomaly: "not_enough_history"}}},
		{Label: "2026-W48", Start: r.Period.Start, End: r.Period.End, Cost: 1234.5, IdleCost: 300, Coverage: 1,
			Anomaly: "in_range", Teams: []analysis.TrendTeam{{Team: "-nlp", Cost: 1234.5, IdleCost: 300, Coverage: 1, Anomaly: "in_range"}}},
	}}
	r.Chargeback = &analysis.Chargeback{UnallocatedRule: "proportional", IdleRule: "even", Total: 1234.5,
		UnallocatedPool: 60, IdlePool: 40, Teams: []analysis.TeamChargeback{
			{Team: "unassigned", Direct: 100, Unallocated: -60, Idle: -40, ChargedBack: 0},
			{Team: "-nlp", Direct: 1134.5, Unallocated: 60, Idle: 20, ChargedBack: 1214.5},
			{Team: "vision", Idle: 20, ChargedBack: 20},
		}}
	r.Allocation = []analysis.Allocation{{Dimension: "tag:project", Groups: []analysis.AllocationGroup{
		{Value: "=cmd|' /C calc'!A0", Cost: 987.6, Share: 0.8}, {Value: analysis.Untagged, Cost: 246.9, Share: 0.2}}}}
	u := analysis.EnergyUse{KWh: new(0.525), PowerCoverage: 0.5, LowerBound: true, CO2eKg: new(0.27468)}
	r.Energy = &analysis.Energy{PUE: 1.2, Total: u,
		ByTeam: []analysis.TeamEnergy{{Team: "-nlp", EnergyUse: u}},
		ByResource: []analysis.ResourceEnergy{
			{ResourceID: "i-1", Provider: "autodl", Region: "cn-north", Team: "-nlp", GridIntensity: new(436.0), EnergyUse: u},
			{ResourceID: "i-2", Provider: "vast", Team: "vision", EnergyUse: analysis.EnergyUse{LowerBound: true}},
		},
		Tasks: []analysis.TaskEnergy{{Task: "@train", Team: "vision", EnergyUse: u}},
	}
	return r
}

// TestWriteCSVSections: the tables of the optional sections, as a BI tool
// reads them: long format (a trend row per week for the total and each
// team), money at the minor unit with its currency, an unknown CO₂e or
// grid intensity an empty cell, never 0, bill text defused.
func TestWriteCSVSections(t *testing.T) {
	const period = "2026-W48,2026-11-23,2026-11-29,"
	for _, tc := range []struct {
		table string
		want  []string
	}{
		{"trend", []string{
			"period,period_start,period_end,week,week_start,week_end,scope,team,currency,cost,idle_cost,coverage,idle_lower_bound,anomaly",
			period + "2026-W47,2026-11-16,2026-11-22,total,,CNY,1000.00,250.50,0.5,true,not_enough_history",
			period + "2026-W47,2026-11-16,2026-11-22,team,'-nlp,CNY,1000.00,250.50,0.5,true,not_enough_history",
			period + "2026-W48,2026-11-23,2026-11-29,total,,CNY,1234.50,300.00,1,false,in_range",
			period + "2026-W48,2026-11-23,2026-11-29,team,'-nlp,CNY,1234.50,300.00,1,false,in_range"}},
		{"chargeback", []string{
			"period,period_start,period_end,team,currency,direct,unallocated,idle,charged_back,unallocated_rule,idle_rule",
			period + "unassigned,CNY,100.00,-60.00,-40.00,0.00,proportional,even",
			period + "'-nlp,CNY,1134.50,60.00,20.00,1214.50,proportional,even",
			period + "vision,CNY,0.00,0.00,20.00,20.00,proportional,even"}},
		{"allocation", []string{
			"period,period_start,period_end,dimension,value,currency,cost,share",
			period + "tag:project,'=cmd|' /C calc'!A0,CNY,987.60,0.8",
			period + "tag:project,(untagged),CNY,246.90,0.2"}},
		{"energy", []string{
			"period,period_start,period_end,scope,name,team,provider,region,energy_kwh,power_coverage,energy_lower_bound,co2e_kg,grid_intensity_g_per_kwh,pue",
			period + "total,,,,,0.525,0.5,true,0.27468,,1.2",
			period + "team,'-nlp,'-nlp,,,0.525,0.5,true,0.27468,,1.2",
			period + "resource,i-1,'-nlp,autodl,cn-north,0.525,0.5,true,0.27468,436,1.2",
			// No power reading on i-2: its energy is unknown (blank), not 0.
			period + "resource,i-2,vision,vast,,,0,true,,,1.2",
			period + "task,'@train,vision,,,0.525,0.5,true,0.27468,,1.2"}},
	} {
		t.Run(tc.table, func(t *testing.T) { checkCSV(t, csvSectionsResult(t), tc.table, tc.want) })
	}
}

// TestCSVNamesMatchWrite: CSVNames, which a run uploads (deliver.ReportFiles),
// names exactly the files WriteAll writes: a section's table only when the
// result has the section, so a run never looks for a file that is not there.
func TestCSVNamesMatchWrite(t *testing.T) {
	base := []string{"by-resource", "by-team", "tasks", "recommendations", "daily"}
	energyOnly := csvResult(t)
	energyOnly.Energy = csvSectionsResult(t).Energy
	for _, tc := range []struct {
		name   string
		r      *analysis.Result
		tables []string
	}{
		{"no sections", csvResult(t), base},
		{"every section", csvSectionsResult(t), append(slices.Clone(base), "trend", "chargeback", "allocation", "energy")},
		{"energy only", energyOnly, append(slices.Clone(base), "energy")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			for _, tb := range tc.tables {
				want = append(want, "finops-2026-W48-"+tb+".csv")
			}
			if got := CSVNames(tc.r, BaseName(tc.r, Meta{})); !slices.Equal(got, want) {
				t.Errorf("CSVNames %q, want %q", got, want)
			}
			dir := t.TempDir()
			paths, err := WriteAll(dir, tc.r, []string{"csv"}, Meta{})
			if err != nil {
				t.Fatal(err)
			}
			var wrote []string
			for _, p := range paths {
				wrote = append(wrote, filepath.Base(p))
			}
			if !slices.Equal(wrote, want) {
				t.Errorf("WriteAll wrote %q, want %q", wrote, want)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var inDir []string
			for _, e := range entries {
				inDir = append(inDir, e.Name())
			}
			slices.Sort(inDir)
			sorted := slices.Sorted(slices.Values(want))
			if !slices.Equal(inDir, sorted) {
				t.Errorf("folder holds %q, want %q", inDir, sorted)
			}
		})
	}
}
