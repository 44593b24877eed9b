package report

import "github.com/finops-oss/finops/internal/analysis"

// chargebackView is the chargeback table beside the team table: every
// team's direct cost, its shares of the two pools and what it is charged
// (a team's page: its own row, the pools and the bill being the fleet's).
type chargebackView struct {
	UnallocatedRule, IdleRule       string
	UnallocatedPool, IdlePool       string
	Total                           string
	Rows                            []chargebackRow
	TotalDirect, TotalUnal, TotIdle string
	// Team is set on a team's page: one row, no total row.
	Team string
}

type chargebackRow struct{ Team, Direct, Unallocated, Idle, ChargedBack string }

// allocationTable is one report.group_by dimension: its values and costs.
type allocationTable struct {
	Dimension string
	Rows      []allocationRow
	Total     string
}

type allocationRow struct{ Value, Cost, Share string }

// allocationViews formats the audience's chargeback (nil without rules)
// and the allocation tables. Tag values are bill text: the template escapes
// them.
func allocationViews(r *analysis.Result, view *Audience) (*chargebackView, []allocationTable) {
	cur := r.Currency
	var cv *chargebackView
	if cb := view.Chargeback; cb != nil {
		cv = &chargebackView{UnallocatedRule: cb.UnallocatedRule, IdleRule: cb.IdleRule, Team: view.Team,
			UnallocatedPool: money(cur, cb.UnallocatedPool), IdlePool: money(cur, cb.IdlePool), Total: money(cur, cb.Bill)}
		var direct, unal, idle float64
		for _, t := range cb.Rows {
			cv.Rows = append(cv.Rows, chargebackRow{Team: t.Team, Direct: money(cur, t.Direct),
				Unallocated: money(cur, t.Unallocated), Idle: money(cur, t.Idle), ChargedBack: money(cur, t.ChargedBack)})
			direct, unal, idle = direct+t.Direct, unal+t.Unallocated, idle+t.Idle
		}
		cv.TotalDirect, cv.TotalUnal, cv.TotIdle = money(cur, direct), money(cur, unal), money(cur, idle)
	}
	var tables []allocationTable
	for _, al := range r.Allocation {
		t := allocationTable{Dimension: al.Dimension}
		var sum float64
		for _, g := range al.Groups {
			t.Rows = append(t.Rows, allocationRow{Value: g.Value, Cost: money(cur, g.Cost), Share: percent(g.Share)})
			sum += g.Cost
		}
		t.Total = money(cur, sum)
		tables = append(tables, t)
	}
	return cv, tables
}
