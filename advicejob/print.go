package advicejob

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/sanitize"
	"github.com/finops-oss/finops/store"
)

// WriteList prints entries as `advice list` does: a table of the advice of
// the window, dates in loc, with a line saying so when there is none (all:
// none at all, else none open). Resource ids and reasons are bill and user
// text: one line each, control characters removed.
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
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRESOURCE\tACTION\tSAVES/MONTH\tSTATE\tWHY")
	for _, e := range entries {
		state, why := "open", ""
		if d := e.Decision; d != nil {
			state = d.Decision + " " + d.DecidedAt.In(loc).Format("2006-01-02")
			if d.Decision == analysis.AdviceSnoozed {
				state = "snoozed until " + d.Until.In(loc).Format("2006-01-02")
				if e.Open {
					state += " (passed)"
				}
			}
			why = sanitize.Truncate(sanitize.Control(d.Why), 60)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, sanitize.Control(e.ResourceID), e.Action,
			amount.Rounded(s.Result.Currency, e.MonthlySavings), state, why)
	}
	return tw.Flush()
}

// DecisionLine is the line `advice done`, `dismiss` or `snooze` prints
// about the decision d it recorded on e, a snooze's end in loc.
func DecisionLine(e *analysis.AdviceEntry, d store.AdviceDecision, loc *time.Location) string {
	what := d.Decision
	if d.Decision == analysis.AdviceSnoozed {
		what += " until " + d.Until.In(loc).Format("2006-01-02")
	}
	return fmt.Sprintf("%s (%s %s) %s", e.ID, strings.ReplaceAll(e.Action, "_", " "), sanitize.Control(e.ResourceID), what)
}
