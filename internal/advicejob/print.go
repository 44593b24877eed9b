package advicejob

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/store"
)

// WriteList prints entries as `advice list` does: a table of the advice of
// the window, dates in loc, with a line saying so when there is none (all:
// none at all, else none open). Each row names the resource's team, the
// action in the report's words (analysis.ActionText) and why: the --why
// given with its decision, else the advice's own reason. Resource ids,
// teams and reasons are bill and user text: one line each, control
// characters removed, the reason cut to whyWidth terminal columns.
func (s *State) WriteList(w io.Writer, entries []analysis.AdviceEntry, all bool, loc *time.Location) error {
	if len(entries) == 0 {
		what := "open advice"
		if all {
			what = "advice"
		}
		_, err := fmt.Fprintf(w, "no %s in %s\n", what, s.Window.Label)
		return err
	}
	fmt.Fprintf(w, "advice of %s\n", s.Window.Label)
	teamOf := s.teams()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRESOURCE\tTEAM\tACTION\tSAVES/MONTH\tSTATE\tWHY")
	for _, e := range entries {
		state, why := "open", e.Reason
		if d := e.Decision; d != nil {
			state = d.Decision + " " + d.DecidedAt.In(loc).Format("2006-01-02")
			if d.Decision == analysis.AdviceSnoozed {
				state = "snoozed until " + d.Until.In(loc).Format("2006-01-02")
				if e.Open {
					state += " (passed)"
				}
			}
			if strings.TrimSpace(d.Why) != "" {
				why = d.Why
			}
		}
		team := teamOf[e.ResourceID]
		if team == "" {
			team = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, sanitize.Control(e.ResourceID), sanitize.Terminal(team, 0),
			analysis.ActionText(e.Action), amount.Rounded(s.Result.Currency, e.MonthlySavings), state,
			sanitize.Terminal(oneLine(why), whyWidth))
	}
	return tw.Flush()
}

// whyWidth is the most terminal columns the WHY column takes: the last
// column, so a long reason never shifts the others, but cut so that a row
// of a usual id, resource and action stays near one 160-column line.
const whyWidth = 60

// oneLine folds a reason's line breaks and runs of spaces into single
// spaces, so a note typed on several lines reads as one (sanitize would
// show each break as U+FFFD).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// DecisionLine is the line `advice done`, `dismiss` or `snooze` prints
// about the decision d it recorded on e, a snooze's end in loc.
func DecisionLine(e *analysis.AdviceEntry, d store.AdviceDecision, loc *time.Location) string {
	what := d.Decision
	if d.Decision == analysis.AdviceSnoozed {
		what += " until " + d.Until.In(loc).Format("2006-01-02")
	}
	return fmt.Sprintf("%s (%s %s) %s", e.ID, strings.ToLower(analysis.ActionText(e.Action)), sanitize.Control(e.ResourceID), what)
}
