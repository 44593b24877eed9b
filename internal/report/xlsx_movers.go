package report

import "github.com/finops-oss/finops/internal/workbook"

// sheetMovers is added only when the result has a history.
const sheetMovers = "Movers"

// movers is the audience's movers as its email and page list them: the
// total's line (the fleet's), a line per team, then the top movers, each
// with its cost, the mean it is set against and over how many weeks, the
// change, in words too, and its flag. Without enough history, one row says
// so.
func (b *book) movers() error {
	st, m := b.st, b.view.Movers
	cols := []workbook.Column{
		{Title: "List", Style: st.text},
		{Title: "Name", Style: st.text},
		{Title: "Kind", Style: st.text},
		{Title: "Team", Style: st.text},
		{Title: "Cost " + m.Week, Style: st.money},
		{Title: "Mean of the weeks with cost", Style: st.money},
		{Title: "Weeks in mean", Style: st.count},
		{Title: "Change", Style: st.money},
		{Title: "Change %", Style: st.percent},
		{Title: "Change in words", Style: st.text},
		{Title: "Flag", Style: st.text},
	}
	var rows [][]any
	if m.NoHistory != "" {
		rows = append(rows, []any{"none", m.NoHistory})
	}
	add := func(list string, mr MoverRow) {
		rows = append(rows, []any{list, mr.Label, mr.Kind, mr.Team, mr.Cost, mr.Mean, mr.BaselineWeeks, mr.Change,
			optional(mr.ChangePct), mr.Text, mr.Flag})
	}
	if m.Total != nil {
		add("total", *m.Total)
	}
	for _, mr := range m.Teams {
		add("team", mr)
	}
	for _, mr := range m.Top {
		add("top", mr)
	}
	return b.table(sheetMovers, cols, rows)
}
