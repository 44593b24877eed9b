package report

import "github.com/finops-oss/finops/internal/workbook"

// The Chargeback and Allocation sheets are added only when the config asks
// for them (chargeback rules, report.group_by), so a default report's
// workbook keeps its sheets.
const (
	sheetChargeback = "Chargeback"
	sheetAllocation = "Allocation"
)

// chargeback is one row per team of the audience (every team; a team's
// workbook: its own): direct cost, its shares of the two pools and the
// total charged back. Every team's rows add up to the bill (the fleet's
// Summary's total cost) to the minor unit.
func (b *book) chargeback() error {
	st, cb := b.st, b.view.Chargeback
	cols := []workbook.Column{
		{Title: "Team", Style: st.text},
		{Title: "Direct cost", Style: st.money},
		{Title: "Share of unallocated (" + cb.UnallocatedRule + ")", Style: st.money},
		{Title: "Share of idle (" + cb.IdleRule + ")", Style: st.money},
		{Title: "Charged back", Style: st.money},
		{Title: "Share of bill", Style: st.percent},
	}
	rows := make([][]any, 0, len(cb.Rows))
	for _, t := range cb.Rows {
		rows = append(rows, []any{t.Team, t.Direct, t.Unallocated, t.Idle, t.ChargedBack, share(t.ChargedBack, cb.Bill)})
	}
	return b.table(sheetChargeback, cols, rows)
}

// allocation is one row per dimension and value, the values of each
// dimension adding up to the bill.
func (b *book) allocation() error {
	st := b.st
	cols := []workbook.Column{
		{Title: "Dimension", Style: st.text},
		{Title: "Value", Style: st.text},
		{Title: "Cost", Style: st.money},
		{Title: "Share of cost", Style: st.percent},
	}
	var rows [][]any
	for _, al := range b.r.Allocation {
		for _, g := range al.Groups {
			rows = append(rows, []any{al.Dimension, g.Value, g.Cost, g.Share})
		}
	}
	return b.table(sheetAllocation, cols, rows)
}
