package report

import (
	"slices"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
)

// roundedMoney rounds every amount of money in n to the currency's minor
// unit, so that the JSON says 14000 rather than 13999.999999991009: the sums
// are float64 and nobody is billed a fraction of a cent. Unit costs are often
// a fraction of a cent per unit; they keep six significant digits instead.
// Hours, shares and utilizations are not money and are left alone.
func roundedMoney(n analysis.Result) analysis.Result {
	EachMoney(&n, func(v *float64, perUnit bool) {
		if perUnit {
			*v = roundSig(*v, 6)
		} else {
			*v = amount.RoundMinor(n.Currency, *v)
		}
	})
	return n
}

// EachMoney calls fn with a pointer to every amount of money in r, so that
// rounding it for the JSON and converting a shard's currency in the rollup
// visit the same fields; perUnit is true for a cost per unit (Tasks[].UnitCost
// and a team's unit costs in the weekly history), which is a fraction of a
// minor unit and must not be rounded to one. Hours, shares and utilizations
// are not money and are not visited (TestRoundedMoneyCoversEveryField lists
// them). The weekly history is visited too (eachTrendMoney), so that the
// JSON rounds it as the rest; the rollup converts it needlessly (Combine
// drops it) but harmlessly.
//
// The lists and the values behind pointers that hold money are copied
// before fn sees them, so r shares nothing fn changes with the Result it was
// copied from.
func EachMoney(r *analysis.Result, fn func(v *float64, perUnit bool)) {
	m := func(v *float64) { fn(v, false) }
	t := &r.Totals
	for _, v := range []*float64{&t.Cost, &t.GPUCost, &t.NonGPUCost, &t.OtherCharges, &t.IdleCost,
		&t.UnmonitoredCost, &t.UnallocatedCost, &t.AllocatedIdleCost, &t.UnusedCommitmentCost,
		&t.MonthlySavings, &t.PreviousCost} {
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
		for _, v := range []*float64{&rc.Cost, &rc.IdleCost, &rc.UnmonitoredCost, &rc.UnallocatedCost, &rc.PreviousCost} {
			m(v)
		}
	}
	r.Tasks = slices.Clone(r.Tasks)
	for i := range r.Tasks {
		tk := &r.Tasks[i]
		m(&tk.Cost)
		m(&tk.IdleCost)
		fn(&tk.UnitCost, true)
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
	r.Pools = slices.Clone(r.Pools)
	for i := range r.Pools {
		pl := &r.Pools[i]
		for _, v := range []*float64{&pl.CurrentMonthlyCost, &pl.PoolMonthlyCost, &pl.MonthlySavings} {
			m(v)
		}
	}
	roundedAllocation(r, m)
	if r.Advice != nil {
		a := *r.Advice
		m(&a.RealisedMonthlySavings)
		m(&a.ExpectedMonthlySavings)
		a.Realised = slices.Clone(a.Realised)
		for i := range a.Realised {
			ra := &a.Realised[i]
			for _, v := range []*float64{&ra.BeforePerDay, &ra.AfterPerDay, &ra.RealisedMonthlySavings, &ra.ExpectedMonthlySavings} {
				m(v)
			}
		}
		r.Advice = &a
	}
	r.Shards = slices.Clone(r.Shards)
	for i := range r.Shards {
		m(&r.Shards[i].Cost)
	}
	if r.Watch != nil {
		w := *r.Watch
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
		r.Watch = &w
	}
	r.Trend = eachTrendMoney(r.Trend, fn)
}
