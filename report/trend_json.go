package report

import (
	"slices"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/analysis"
)

// trendJSON is the history as the JSON summary writes it: a deep copy
// (the Result is not modified), money rounded to the currency's minor unit,
// unit costs to six significant digits, and lists never null. nil stays nil.
func trendJSON(cur string, t *analysis.Trend) *analysis.Trend {
	if t == nil {
		return nil
	}
	m := func(v *float64) { *v = amount.RoundMinor(cur, *v) }
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
				tt.UnitCosts[k].UnitCost = roundSig(tt.UnitCosts[k].UnitCost, 6)
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
