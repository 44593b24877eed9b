package report

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// notMoney are the float fields of analysis.Result that roundedMoney leaves
// alone on purpose: hours, shares, utilizations, counts, prices per hour.
// TestRoundedMoneyCoversEveryField fails when a float field is neither
// rounded nor listed here, so a new amount of money cannot be forgotten.
var notMoney = []string{
	"Allocation[].Groups[].Share", "ByResource[].AvgUtilization", "ByResource[].Bands.Fair", "ByResource[].Bands.Idle", "ByResource[].Bands.Low",
	"ByResource[].Bands.Saturated", "ByResource[].Bands.Target", "ByResource[].GPUHoursActive",
	"ByResource[].GPUHoursBilled", "ByResource[].GPUHoursIdle", "ByResource[].GPUHoursUnmonitored",
	"ByResource[].SaturatedHours", "ByTeam[].GPUHoursBilled", "ByTeam[].GPUHoursMonitored", "DataQuality.Coverage",
	"DataQuality.ExchangeRates[].Rate", "DataQuality.MinCoverage", "DataQuality.UnmonitoredShare", "IdleSpans[].Hours",
	"Recommendations[].ActiveHoursPerMonth", "Recommendations[].BreakevenHoursPerMonth", "Tasks[].GPUHours",
	"Tasks[].GPUHoursMonitored", "Tasks[].Units", "Totals.AvgGPUUtilization", "Totals.GPUHoursActive", "Totals.GPUHoursBilled",
	"Totals.GPUHoursIdle", "Totals.GPUHoursUnmonitored", "Watch.Actions[].Hours",
	// energy (kWh, shares, gCO₂e/kWh, kg CO₂e): metrics.md §Energy
	"Energy.ByResource[].EnergyUse.CO2eKg", "Energy.ByResource[].EnergyUse.KWh",
	"Energy.ByResource[].EnergyUse.PowerCoverage", "Energy.ByResource[].GridIntensity",
	"Energy.ByTeam[].EnergyUse.CO2eKg", "Energy.ByTeam[].EnergyUse.KWh", "Energy.ByTeam[].EnergyUse.PowerCoverage",
	"Energy.PUE", "Energy.Tasks[].EnergyUse.CO2eKg", "Energy.Tasks[].EnergyUse.KWh",
	"Energy.Tasks[].EnergyUse.PowerCoverage", "Energy.Total.CO2eKg", "Energy.Total.KWh", "Energy.Total.PowerCoverage",
	// the weekly history (eachTrendMoney, trend_json.go): shares and units
	"Trend.ResourceMovers[].ChangePct", "Trend.TeamMovers[].ChangePct", "Trend.TopMovers[].ChangePct",
	"Trend.TotalMover.ChangePct", "Trend.Weeks[].Coverage", "Trend.Weeks[].Resources[].Coverage", "Trend.Weeks[].Teams[].Coverage",
	"Trend.Weeks[].Teams[].UnitCosts[].Units",
	// a rollup's per-shard table (analysis/shard.go)
	"Shards[].Coverage", "Shards[].GPUHoursBilled", "Shards[].GPUHoursMonitored",
}

// TestRoundedMoneyCoversEveryField sets every float64 of a Result (each
// slice given one element, each pointer a value) to 1234.56789 and lists the
// ones roundedMoney did not change.
func TestRoundedMoneyCoversEveryField(t *testing.T) {
	var r analysis.Result
	r.Currency = "USD"
	fill(reflect.ValueOf(&r).Elem())
	out := roundedMoney(r)
	var unchanged []string
	floats(reflect.ValueOf(out), "", func(path string, v float64) {
		if v == 1234.56789 {
			unchanged = append(unchanged, path)
		}
	})
	sort.Strings(unchanged)
	want := slices.Clone(notMoney)
	sort.Strings(want)
	if !slices.Equal(unchanged, want) {
		t.Errorf("float fields roundedMoney leaves alone:\n%s\nwant (notMoney):\n%s\nround a new amount of money in json_money.go, or list a field that is not money in notMoney",
			strings.Join(unchanged, "\n"), strings.Join(want, "\n"))
	}
}

var timeType = reflect.TypeOf(time.Time{})

// fill gives v's floats 1234.56789, its slices one element and its pointers
// a value, all the way down.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Float64:
		v.SetFloat(1234.56789)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem())
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		fill(v.Index(0))
	case reflect.Struct:
		if v.Type() == timeType {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	}
}

// floats calls fn with every float64 under v that the JSON summary writes,
// and its path (Totals.Cost, ByTeam[].Budget …).
func floats(v reflect.Value, path string, fn func(string, float64)) {
	switch v.Kind() {
	case reflect.Float64:
		fn(path, v.Float())
	case reflect.Pointer:
		if !v.IsNil() {
			floats(v.Elem(), path, fn)
		}
	case reflect.Slice:
		for i := range v.Len() {
			floats(v.Index(i), path+"[]", fn)
		}
	case reflect.Struct:
		if v.Type() == timeType {
			return
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				p := f.Name
				if path != "" {
					p = path + "." + f.Name
				}
				floats(v.Field(i), p, fn)
			}
		}
	}
}
