package report

import "github.com/finops-oss/finops/internal/workbook"

// sheetWatch is added only when the watch did something in the period, so a
// report of a fleet without `finops watch` keeps its tabs.
const sheetWatch = "Watch"

// watch writes one row per action, then one per alert delivered: an action
// with its idle rate, how long it saved for and the money (metrics.md §What
// the watch saved); "would have" rows are dry runs.
func (b *book) watch() error {
	st := b.st
	zone := b.loc.String()
	cols := []workbook.Column{
		{Title: "Kind", Style: st.text},
		{Title: "Time (" + zone + ")", Style: st.date},
		{Title: "Resource ID", Style: st.text},
		{Title: "Team", Style: st.text},
		{Title: "Event or action", Style: st.text},
		{Title: "Channel", Style: st.text},
		{Title: "Outcome", Style: st.text},
		{Title: "Exit code", Style: st.count},
		{Title: "Dry run", Style: st.text},
		{Title: "Idle rate per hour", Style: st.money},
		{Title: "Until (" + zone + ")", Style: st.date},
		{Title: "Until next busy", Style: st.text},
		{Title: "Hours", Style: st.hours},
		{Title: "Saved", Style: st.money},
		{Title: "Would have saved", Style: st.money},
		{Title: "Title", Style: st.text, Width: 60},
	}
	w := b.r.Watch
	rows := make([][]any, 0, len(w.Actions)+len(w.Alerts))
	for _, a := range w.Actions {
		var code, until, busy, hrs, saved, would any
		if a.ExitCode != nil {
			code = *a.ExitCode
		}
		if !a.Until.IsZero() {
			until, hrs, busy = a.Until, a.Hours, "yes"
			if !a.NextBusy {
				busy = untilReason(a)
			}
		}
		if a.DryRun {
			would = optional(a.Saved)
		} else {
			saved = optional(a.Saved)
		}
		rows = append(rows, []any{"action", a.At, a.Resource, a.Team, a.Action, nil, a.Outcome, code, yesNo(a.DryRun),
			optional(a.Rate), until, busy, hrs, saved, would, nil})
	}
	for _, a := range w.Alerts {
		rows = append(rows, []any{"alert", a.At, a.Resource, a.Team, a.Event, a.Channel, "sent", nil, nil,
			nil, nil, nil, nil, nil, nil, a.Title})
	}
	return b.table(sheetWatch, cols, rows)
}
