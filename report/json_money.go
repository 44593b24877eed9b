package report

import (
	"slices"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/analysis"
)

// roundedMoney rounds every amount of money in n to the currency's minor
// unit, so that the JSON says 14000 rather than 13999.999999991009: the sums
// are float64 and nobody is billed a fraction of a cent. Unit costs are often
// a fraction of a cent per unit; they keep six significant digits instead.
// Hours, shares and utilizations are not money and are left alone. The lists
// are copied first: n shares its backing arrays with the caller's Result.
func roundedMoney(n analysis.Result) analysis.Result {
	m := func(v *float64) { *v = amount.RoundMinor(n.Currency, *v) }

	t := &n.Totals
	for _, v := range []*float64{&t.Cost, &t.GPUCost, &t.NonGPUCost, &t.OtherCharges, &t.IdleCost,
		&t.UnmonitoredCost, &t.UnallocatedCost, &t.AllocatedIdleCost, &t.UnusedCommitmentCost,
		&t.MonthlySavings, &t.PreviousCost} {
		m(v)
	}
	n.ByTeam = slices.Clone(n.ByTeam)
	for i := range n.ByTeam {
		tc := &n.ByTeam[i]
		for _, v := range []*float64{&tc.Cost, &tc.GPUCost, &tc.IdleCost, &tc.PreviousCost, &tc.MonthToDate, &tc.MonthForecast} {
			m(v)
		}
		if tc.Budget != nil {
			b := *tc.Budget
			m(&b)
			tc.Budget = &b
		}
	}
	n.ByResource = slices.Clone(n.ByResource)
	for i := range n.ByResource {
		rc := &n.ByResource[i]
		for _, v := range []*float64{&rc.Cost, &rc.IdleCost, &rc.UnmonitoredCost, &rc.PreviousCost} {
			m(v)
		}
	}
	n.Tasks = slices.Clone(n.Tasks)
	for i := range n.Tasks {
		tk := &n.Tasks[i]
		m(&tk.Cost)
		m(&tk.IdleCost)
		tk.UnitCost = roundSig(tk.UnitCost, 6)
	}
	n.Recommendations = slices.Clone(n.Recommendations)
	for i := range n.Recommendations {
		rec := &n.Recommendations[i]
		for _, v := range []*float64{&rec.CurrentMonthlyCost, &rec.RecommendedMonthlyCost, &rec.MonthlySavings} {
			m(v)
		}
	}
	n.IdleSpans = slices.Clone(n.IdleSpans)
	for i := range n.IdleSpans {
		m(&n.IdleSpans[i].Cost)
	}
	n.Findings = slices.Clone(n.Findings)
	for i := range n.Findings {
		m(&n.Findings[i].Money)
	}
	n.Pools = slices.Clone(n.Pools)
	for i := range n.Pools {
		pl := &n.Pools[i]
		for _, v := range []*float64{&pl.CurrentMonthlyCost, &pl.PoolMonthlyCost, &pl.MonthlySavings} {
			m(v)
		}
	}
	roundedAllocation(&n, m)
	if n.Advice != nil {
		a := *n.Advice
		m(&a.RealisedMonthlySavings)
		m(&a.ExpectedMonthlySavings)
		a.Realised = slices.Clone(a.Realised)
		for i := range a.Realised {
			ra := &a.Realised[i]
			for _, v := range []*float64{&ra.BeforePerDay, &ra.AfterPerDay, &ra.RealisedMonthlySavings, &ra.ExpectedMonthlySavings} {
				m(v)
			}
		}
		n.Advice = &a
	}
	n.Shards = slices.Clone(n.Shards)
	for i := range n.Shards {
		m(&n.Shards[i].Cost)
	}
	if n.Watch != nil {
		w := *n.Watch
		m(&w.Saved)
		m(&w.WouldHaveSaved)
		w.Actions = slices.Clone(w.Actions)
		for i := range w.Actions {
			a := &w.Actions[i]
			for _, p := range []**float64{&a.Rate, &a.Saved} {
				if *p != nil {
					v := **p
					m(&v)
					*p = &v
				}
			}
		}
		n.Watch = &w
	}
	n.Trend = trendJSON(n.Currency, n.Trend)
	return n
}
