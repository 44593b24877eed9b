package report

import (
	"math"
	"sort"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/analysis"
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
// by largest remainder (Hamilton's method, as the chargeback's direct
// column): each rounded down, and the units still missing one each to the
// largest remainders (ties: the earlier). ok is false, and nothing
// rounded, when the amounts are a minor unit or more from total, or none.
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
	out := make([]float64, len(amounts))
	order := make([]int, len(amounts))
	var floor float64
	for i, v := range amounts {
		out[i] = math.Floor(v)
		floor += out[i]
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return amounts[order[a]]-out[order[a]] > amounts[order[b]]-out[order[b]]
	})
	// |sum − total| < 1 and each floor takes less than 1 off: the units
	// missing are at most as many as the amounts, so one round gives them.
	for k := 0; floor < total && k < len(order); k++ {
		out[order[k]]++
		floor++
	}
	if floor != total {
		return nil, false
	}
	return out, true
}
