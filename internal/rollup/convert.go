package rollup

import (
	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/report"
)

// converted returns r with every amount of money converted at rate into the
// currency to: each amount on its own, in decimal, from the cents the
// shard's JSON holds, and rounded to to's minor unit (unit costs, a fraction
// of a cent, are not rounded). So a converted total can differ from the sum
// of its converted parts by a minor unit per part. The amounts are those the
// JSON summary rounds (report.EachMoney), so a new one is converted once it
// is rounded; that includes sections Combine drops, which it converts
// needlessly but harmlessly. The lists are copied: r is not changed.
func converted(r analysis.Result, rate decimal.Decimal, to string) analysis.Result {
	if rate.Equal(decimal.NewFromInt(1)) {
		r.Currency = to
		return r
	}
	report.EachMoney(&r, func(v *float64, perUnit bool) {
		c := decimal.NewFromFloat(*v).Mul(rate).InexactFloat64()
		if !perUnit {
			c = amount.RoundMinor(to, c)
		}
		*v = c
	})
	from := r.Currency
	r.Currency = to
	partsTotals(&r)
	// The sentences too: EachMoney copied the lists, so r's are its own.
	tc := newTextConverter(from, to, rate)
	for i := range r.Findings {
		r.Findings[i].Text = tc.convert(r.Findings[i].Text)
	}
	for i := range r.Recommendations {
		r.Recommendations[i].Reason = tc.convert(r.Recommendations[i].Reason)
	}
	return r
}

// partsTotals sets a converted shard's cost and GPU cost to what its
// converted parts add up to (the teams', the resources'), and non-GPU cost
// to the difference: a shard counts only as what its parts add up to, in
// the rollup's currency too, so that the rollup's own summary adds up
// (checkParts holds of it). Each part is rounded on its own, so the total
// can differ from the shard's total converted at once by a minor unit per
// part. In the shard's currency its parts added up to its totals exactly
// (checkParts), so a shard with no teams (no resources) has no cost (GPU
// cost) to lose.
func partsTotals(r *analysis.Result) {
	var cost, gpu decimal.Decimal
	for _, tc := range r.ByTeam {
		cost = cost.Add(decimal.NewFromFloat(tc.Cost))
	}
	for _, rc := range r.ByResource {
		gpu = gpu.Add(decimal.NewFromFloat(rc.Cost))
	}
	r.Totals.Cost, r.Totals.GPUCost = cost.InexactFloat64(), gpu.InexactFloat64()
	r.Totals.NonGPUCost = cost.Sub(gpu).InexactFloat64()
}
