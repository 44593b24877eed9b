package report

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// watchView is the page's Watch section: what `finops watch` sent and did in
// the period and what it saved (metrics.md §What the watch saved).
type watchView struct {
	Summary string
	Alerts  []watchAlertRow
	Actions []watchActionRow
}

type watchAlertRow struct {
	Resource                        template.HTML
	At, Team, Event, Channel, Title string
}

type watchActionRow struct {
	Resource                                                   template.HTML
	At, Team, Action, Outcome, Exit, Rate, Until, Hours, Saved string
	DryRun, Saves                                              bool
}

// watchTimeLayout shows the zone's offset: the page's zone is in its header,
// but an action's time is read next to the telemetry's.
const watchTimeLayout = "2006-01-02 15:04 -07:00"

// newWatchView is nil when the watch did nothing in the period: the page
// then has no Watch section.
func newWatchView(r *analysis.Result, loc *time.Location) *watchView {
	w := r.Watch
	if w == nil {
		return nil
	}
	cur := r.Currency
	v := &watchView{Summary: watchLine(r)}
	for _, a := range w.Alerts {
		v.Alerts = append(v.Alerts, watchAlertRow{Resource: breakableID(a.Resource), At: a.At.In(loc).Format(watchTimeLayout),
			Team: a.Team, Event: a.Event, Channel: a.Channel, Title: a.Title})
	}
	for _, a := range w.Actions {
		row := watchActionRow{Resource: breakableID(a.Resource), At: a.At.In(loc).Format(watchTimeLayout), Team: a.Team,
			Action: a.Action, Outcome: a.Outcome, DryRun: a.DryRun, Rate: "unknown"}
		if a.ExitCode != nil {
			row.Exit = strconv.Itoa(*a.ExitCode)
		}
		if a.Rate != nil {
			row.Rate = money(cur, *a.Rate) + " / h"
		}
		if !a.Until.IsZero() {
			row.Until = a.Until.In(loc).Format(watchTimeLayout)
			if why := untilReason(a); why != "" {
				row.Until += " (" + why + ")"
			}
			row.Hours = hours(a.Hours)
		}
		if a.Saved != nil {
			row.Saved, row.Saves = money(cur, *a.Saved), !a.DryRun
			if a.DryRun {
				row.Saved = "would have " + row.Saved
			}
		}
		v.Actions = append(v.Actions, row)
	}
	return v
}

// untilReason says what ended an action's saving when it was not the
// resource's next busy minute (""): the saving never runs past now or the
// last minute with data (metrics.md §What the watch saved).
func untilReason(a analysis.WatchAction) string {
	switch {
	case a.NextBusy:
		return ""
	case a.UntilBy == "now":
		return "now: the period has not ended"
	case a.UntilBy == "data":
		return "last minute with data"
	}
	return "end of period"
}

// watchLine is the one line the terminal summary, the email and the page
// give the watch: counts and money only, no text from the bill. It is ""
// when the watch did nothing in the period.
func watchLine(r *analysis.Result) string {
	w := r.Watch
	if w == nil {
		return ""
	}
	var done, dry, other int
	for _, a := range w.Actions {
		switch {
		case a.DryRun:
			dry++
		case a.Outcome == "done":
			done++
		default:
			other++
		}
	}
	parts := []string{plural(len(w.Alerts), "alert") + " sent", plural(done, "action") + " taken"}
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%d not taken or failed", other))
	}
	line := strings.Join(parts, ", ") + ", saving an estimated " + money(r.Currency, w.Saved)
	if dry > 0 {
		line += "; " + plural(dry, "dry run") + " would have saved " + money(r.Currency, w.WouldHaveSaved)
	}
	return line
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
