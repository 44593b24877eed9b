package rollup

import (
	"fmt"
	"math"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
)

// maxMinorUnits bounds an amount in minor units: below 2⁵³ every whole
// number of cents is exact in a float64, so sums of parts compare exactly.
// 2⁵³ cents is 90 trillion dollars: no shard's week.
const maxMinorUnits = 1 << 53

// checkParts refuses a shard whose totals are not what its parts add up
// to, to the minor unit of its currency (the cent): the teams' costs to
// totals.cost, the resources' costs to totals.gpu_cost (by_resource holds
// the GPU resources; non-GPU charges are in the teams only), and
// gpu_cost + non_gpu_cost to cost; and one whose total is negative. The
// JSON summary finops writes rounds its parts so that they add up
// (report.WriteJSON); one that does not was edited, or cut, by hand.
func checkParts(name string, r *analysis.Result) error {
	unit := math.Pow10(amount.MinorDigits(r.Currency))
	minor := func(what string, v float64) (int64, error) {
		m := math.Round(v * unit)
		if math.IsNaN(m) || math.Abs(m) >= maxMinorUnits {
			return 0, refuse("shard %s: %s is %g %s, beyond any bill: report the shard again with `finops report --format json`",
				name, what, v, r.Currency)
		}
		return int64(m), nil
	}
	t := r.Totals
	total, err := minor("totals.cost", t.Cost)
	if err != nil {
		return err
	}
	if total < 0 {
		return refuse("shard %s: totals.cost is %s, below zero: a week's bill in a summary finops writes is never "+
			"negative (credits are inside it); report the shard again with `finops report --format json`",
			name, minorText(r.Currency, total, unit))
	}
	gpu, err := minor("totals.gpu_cost", t.GPUCost)
	if err != nil {
		return err
	}
	teams := make([]float64, len(r.ByTeam))
	for i, tc := range r.ByTeam {
		teams[i] = tc.Cost
	}
	resources := make([]float64, len(r.ByResource))
	for i, rc := range r.ByResource {
		resources[i] = rc.Cost
	}
	for _, c := range []struct {
		total   string
		want    int64
		parts   string
		amounts []float64
	}{
		{"totals.cost", total, "by_team[].cost", teams},
		{"totals.gpu_cost", gpu, "by_resource[].cost", resources},
		{"totals.cost", total, "totals.gpu_cost + totals.non_gpu_cost", []float64{t.GPUCost, t.NonGPUCost}},
	} {
		var sum int64
		for i, v := range c.amounts {
			m, err := minor(fmt.Sprintf("%s #%d", c.parts, i+1), v)
			if err != nil {
				return err
			}
			sum += m
		}
		if sum != c.want {
			return refuse("shard %s: %s is %s but %s add up to %s: a shard counts only as what its parts add up to; "+
				"report the shard again with `finops report --format json`, unedited",
				name, c.total, minorText(r.Currency, c.want, unit), c.parts, minorText(r.Currency, sum, unit))
		}
	}
	return nil
}

// minorText writes m minor units of currency with all its digits.
func minorText(currency string, m int64, unit float64) string {
	return amount.Format(currency, float64(m)/unit, amount.MinorDigits(currency))
}
