package report

import (
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/workbook"
)

// sheetTrend is added only when the result has a history.
const sheetTrend = "Trend"

// trendSheet writes the weekly history: per week a total row, a row per team
// and a row per resource, each with its cost, idle cost, whether that idle
// is a lower bound, and its anomaly flag; a team's unit costs; a row per
// absent week (no data yet: absent, not zero). The last week's rows carry
// the change against the mean of the weeks before that had cost, and how
// many those were (movers).
func (b *book) trendSheet() error {
	st, t := b.st, b.r.Trend
	zone := b.loc.String()
	cols := []workbook.Column{
		{Title: "Week", Style: st.text},
		{Title: "Start (" + zone + ")", Style: st.day},
		{Title: "Row", Style: st.text},
		{Title: "Team", Style: st.text},
		{Title: "Resource ID", Style: st.text},
		{Title: "Cost", Style: st.money},
		{Title: "Idle cost", Style: st.money},
		{Title: "Idle is a lower bound", Style: st.text},
		{Title: "Telemetry coverage", Style: st.percent},
		{Title: "Anomaly", Style: st.text},
		{Title: "Unit cost", Style: st.unitMoney},
		{Title: "Per", Style: st.text},
		{Title: "Mean of the weeks with cost", Style: st.money},
		{Title: "Change vs mean", Style: st.money},
		{Title: "Change vs mean %", Style: st.percent},
		{Title: "Weeks in mean", Style: st.count},
	}
	movers := map[string]analysis.Mover{}
	if t.TotalMover != nil {
		movers["total\x00"] = *t.TotalMover
	}
	for _, m := range t.TeamMovers {
		movers["team\x00"+m.Name] = m
	}
	for _, m := range t.ResourceMovers {
		movers["resource\x00"+m.Name] = m
	}
	var rows [][]any
	for _, w := range t.AbsentWeeks {
		rows = append(rows, []any{w, nil, "absent: before the first data", nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil})
	}
	for i, w := range t.Weeks {
		last := i == len(t.Weeks)-1
		change := func(key string) []any {
			m, ok := movers[key]
			if !last || !ok {
				return []any{nil, nil, nil, nil}
			}
			return []any{m.Mean, m.Change, optional(m.ChangePct), m.BaselineWeeks}
		}
		rows = append(rows, append([]any{w.Label, w.Start, "total", nil, nil, w.Cost, measuredCell(w.IdleCost, w.IdleReading()), w.IdleLowerBound,
			w.Coverage, w.Anomaly, nil, nil}, change("total\x00")...))
		for _, tt := range w.Teams {
			var unitCost, per any
			if len(tt.UnitCosts) == 1 {
				unitCost, per = tt.UnitCosts[0].UnitCost, tt.UnitCosts[0].Unit
			} else if len(tt.UnitCosts) > 1 {
				var parts []string
				for _, u := range tt.UnitCosts {
					parts = append(parts, unitMoney(b.r.Currency, u.UnitCost)+" per "+u.Unit)
				}
				per = strings.Join(parts, "; ")
			}
			rows = append(rows, append([]any{w.Label, w.Start, "team", tt.Team, nil, tt.Cost, measuredCell(tt.IdleCost, tt.IdleReading()), tt.IdleLowerBound,
				tt.Coverage, tt.Anomaly, unitCost, per}, change("team\x00"+tt.Team)...))
		}
		for _, r := range w.Resources {
			rows = append(rows, append([]any{w.Label, w.Start, "resource", r.Team, r.ResourceID, r.Cost, measuredCell(r.IdleCost, r.IdleReading()),
				r.IdleLowerBound, r.Coverage, r.Anomaly, nil, nil}, change("resource\x00"+r.ResourceID)...))
		}
	}
	return b.table(sheetTrend, cols, rows)
}
