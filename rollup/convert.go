package rollup

import (
	"slices"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/analysis"
	"github.com/shopspring/decimal"
)

// converted returns r with every amount of money the rollup keeps converted
// at rate into the currency to: each amount on its own, in decimal, from the
// cents the shard's JSON holds, and rounded to to's minor unit (unit costs,
// a fraction of a cent, are not rounded). So a converted total can differ
// from the sum of its converted parts by a minor unit per part. Sections the
// rollup drops (Read's Dropped) are left as they were. The lists are copied:
// r is not changed.
func converted(r analysis.Result, rate decimal.Decimal, to string) analysis.Result {
	if rate.Equal(decimal.NewFromInt(1)) {
		r.Currency = to
		return r
	}
	m := func(v *float64) {
		*v = amount.RoundMinor(to, decimal.NewFromFloat(*v).Mul(rate).InexactFloat64())
	}
	t := &r.Totals
	for _, v := range []*float64{&t.Cost, &t.GPUCost, &t.NonGPUCost, &t.OtherCharges, &t.IdleCost, &t.UnmonitoredCost,
		&t.UnallocatedCost, &t.AllocatedIdleCost, &t.UnusedCommitmentCost, &t.MonthlySavings, &t.PreviousCost} {
		m(v)
	}
	r.ByTeam = slices.Clone(r.ByTeam)
	for i := range r.ByTeam {
		tc := &r.ByTeam[i]
		for _, v := range []*float64{&tc.Cost, &tc.GPUCost, &tc.IdleCost, &tc.PreviousCost, &tc.MonthToDate, &tc.MonthForecast} {
			m(v)
		}
		if tc.Budget != nil {
			b := *tc.Budget
			m(&b)
			tc.Budget = &b
		}
	}
	r.ByResource = slices.Clone(r.ByResource)
	for i := range r.ByResource {
		rc := &r.ByResource[i]
		for _, v := range []*float64{&rc.Cost, &rc.IdleCost, &rc.UnmonitoredCost, &rc.PreviousCost} {
			m(v)
		}
	}
	r.Tasks = slices.Clone(r.Tasks)
	for i := range r.Tasks {
		tk := &r.Tasks[i]
		m(&tk.Cost)
		m(&tk.IdleCost)
		tk.UnitCost = decimal.NewFromFloat(tk.UnitCost).Mul(rate).InexactFloat64()
	}
	r.Recommendations = slices.Clone(r.Recommendations)
	for i := range r.Recommendations {
		rec := &r.Recommendations[i]
		for _, v := range []*float64{&rec.CurrentMonthlyCost, &rec.RecommendedMonthlyCost, &rec.MonthlySavings} {
			m(v)
		}
	}
	r.IdleSpans = slices.Clone(r.IdleSpans)
	for i := range r.IdleSpans {
		m(&r.IdleSpans[i].Cost)
	}
	r.Findings = slices.Clone(r.Findings)
	for i := range r.Findings {
		m(&r.Findings[i].Money)
	}
	r.Currency = to
	return r
}
