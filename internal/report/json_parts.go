package report

import (
	"math"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
)

// partsAddUp makes the JSON's parts add up to its totals to the minor unit,
// as a reader (and `finops rollup`, which refuses a summary whose parts do
// not) adds them: each amount rounded on its own, the teams' costs can miss
// the rounded total by a cent or two. rounded is raw after roundedMoney,
// with the lists copied; raw is the unrounded Result, in the same order.
//
//   - by_team[].cost add up to totals.cost,
//   - by_resource[].cost to totals.gpu_cost (the GPU resources: non-GPU
//     charges are in the teams only),
//   - totals.non_gpu_cost is totals.cost − totals.gpu_cost.
//
// Each list is rounded by largest remainder to the rounded total, so no
// part moves by more than a minor unit from its own rounding; but only
// when the unrounded parts are within a minor unit of the total, so that
// parts that really disagree with the total are written as they are, not
// made to agree.
func partsAddUp(rounded *analysis.Result, raw *analysis.Result) {
	unit := math.Pow10(amount.MinorDigits(rounded.Currency))
	toMinor := func(v float64) float64 { return math.Round(v * unit) }
	total, gpu := toMinor(raw.Totals.Cost), toMinor(raw.Totals.GPUCost)
	rounded.Totals.NonGPUCost = (total - gpu) / unit

	teams := make([]float64, len(raw.ByTeam))
	for i, tc := range raw.ByTeam {
		teams[i] = tc.Cost * unit
	}
	if fixed, ok := toTotal(total, teams); ok && len(rounded.ByTeam) == len(fixed) {
		for i := range fixed {
			rounded.ByTeam[i].Cost = fixed[i] / unit
		}
	}
	resources := make([]float64, len(raw.ByResource))
	for i, rc := range raw.ByResource {
		resources[i] = rc.Cost * unit
	}
	if fixed, ok := toTotal(gpu, resources); ok && len(rounded.ByResource) == len(fixed) {
		for i := range fixed {
			rounded.ByResource[i].Cost = fixed[i] / unit
		}
	}
}

// toTotal rounds amounts (in minor units) to whole ones adding up to total
// by largest remainder (amount.RoundToTotal, as the chargeback's direct
// column). ok is false, and nothing rounded, when the amounts are a minor
// unit or more from total, or none: parts that really disagree with the
// total are written as they are.
func toTotal(total float64, amounts []float64) ([]float64, bool) {
	if len(amounts) == 0 {
		return nil, false
	}
	var sum float64
	for _, v := range amounts {
		sum += v
	}
	if math.IsNaN(sum) || math.Abs(sum-total) >= 1 {
		return nil, false
	}
	// |sum − total| < 1: the units missing after flooring are at most as
	// many as the amounts, so each part moves by under one minor unit.
	whole := amount.RoundToTotal(int64(total), amounts)
	out := make([]float64, len(whole))
	for i, m := range whole {
		out[i] = float64(m)
	}
	return out, true
}
