package report

import (
	"slices"

	"github.com/finops-oss/finops/internal/analysis"
)

// eachTrendMoney is EachMoney's walk of the weekly history: fn sees every
// amount of money in a deep copy of t (the Result is not modified), a
// team's unit costs with perUnit true. The copy's lists are never null, as
// the JSON summary writes them. nil stays nil.
func eachTrendMoney(t *analysis.Trend, fn func(v *float64, perUnit bool)) *analysis.Trend {
	if t == nil {
		return nil
	}
	m := func(v *float64) { fn(v, false) }
	movers := func(ms []analysis.Mover) []analysis.Mover {
		ms = slices.Clone(nonNil(ms))
		for i := range ms {
			m(&ms[i].Cost)
			m(&ms[i].Mean)
			m(&ms[i].Change)
		}
		return ms
	}
	out := *t
	out.AbsentWeeks = slices.Clone(nonNil(t.AbsentWeeks))
	out.Weeks = slices.Clone(nonNil(t.Weeks))
	for i := range out.Weeks {
		w := &out.Weeks[i]
		m(&w.Cost)
		m(&w.IdleCost)
		w.Teams = slices.Clone(nonNil(w.Teams))
		for j := range w.Teams {
			tt := &w.Teams[j]
			m(&tt.Cost)
			m(&tt.IdleCost)
			tt.UnitCosts = slices.Clone(nonNil(tt.UnitCosts))
			for k := range tt.UnitCosts {
				m(&tt.UnitCosts[k].Cost)
				fn(&tt.UnitCosts[k].UnitCost, true)
			}
		}
		w.Resources = slices.Clone(nonNil(w.Resources))
		for j := range w.Resources {
			m(&w.Resources[j].Cost)
			m(&w.Resources[j].IdleCost)
		}
	}
	if t.TotalMover != nil {
		tm := movers([]analysis.Mover{*t.TotalMover})[0]
		out.TotalMover = &tm
	}
	out.TeamMovers = movers(t.TeamMovers)
	out.ResourceMovers = movers(t.ResourceMovers)
	out.TopMovers = movers(t.TopMovers)
	return &out
}
