package analysis

import "time"

// PreviousWindow is the window of the same length just before w: the base of
// week-over-week (or period-over-period) trends.
func PreviousWindow(w Window) Window {
	return Window{Start: w.Start.Add(-w.End.Sub(w.Start)), End: w.Start}
}

// MonthWindow is the month to date at the end of w: from the first of the
// month holding w's last instant (in loc) to w.End.
func MonthWindow(w Window, loc *time.Location) Window {
	last := w.End.Add(-time.Nanosecond).In(loc)
	start := time.Date(last.Year(), last.Month(), 1, 0, 0, 0, 0, loc)
	return Window{Start: start.UTC(), End: w.End}
}

// applyPrevious copies the previous window's costs onto the totals, teams and resources.
func applyPrevious(res, prev *Result) {
	res.Totals.PreviousCost = prev.Totals.Cost
	teams := map[string]float64{}
	for _, t := range prev.ByTeam {
		teams[t.Team] = t.Cost
	}
	for i := range res.ByTeam {
		res.ByTeam[i].PreviousCost = teams[res.ByTeam[i].Team]
	}
	resources := map[string]float64{}
	for _, r := range prev.ByResource {
		resources[r.ResourceID] = r.Cost
	}
	for i := range res.ByResource {
		res.ByResource[i].PreviousCost = resources[res.ByResource[i].ResourceID]
	}
}

// applyMonth sets each team's month-to-date spend and its month-end forecast:
// the month-to-date daily rate carried to the end of the month.
func applyMonth(res, month *Result, w Window, loc *time.Location) {
	mtd := map[string]float64{}
	for _, t := range month.ByTeam {
		mtd[t.Team] = t.Cost
	}
	start := w.Start.In(loc)
	days := float64(time.Date(start.Year(), start.Month()+1, 1, 0, 0, 0, 0, loc).Sub(start)) / float64(24*time.Hour)
	elapsed := float64(w.End.Sub(w.Start)) / float64(24*time.Hour)
	for i := range res.ByTeam {
		t := &res.ByTeam[i]
		t.MonthToDate = mtd[t.Team]
		if elapsed > 0 {
			t.MonthForecast = t.MonthToDate * days / elapsed
		}
	}
}
