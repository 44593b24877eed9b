package pass

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/termcol"
)

// WriteHistory writes `finops watch --history`'s table: every decision,
// oldest first, with each command's arguments, outcome, exit code and, with
// output, the end of its output. Resource, team and output come from bills
// and commands: each is cut to one line of printable text.
func WriteHistory(w io.Writer, recs []store.WatchRecord, output bool) error {
	tw := termcol.NewWriter(w)
	fmt.Fprintln(tw, "time (UTC)\tdecision\tresource\tteam\tburnt\tdetail")
	for _, r := range recs {
		burnt := "?"
		if r.BurntKnown {
			burnt = amount.Rounded(r.Currency, r.Burnt)
		}
		detail := r.Title
		if a := r.Action; a != nil {
			argv, _ := json.Marshal(a.Argv)
			detail = fmt.Sprintf("%s %s: %s", a.Action, argv, a.Outcome)
			if a.ExitCode != nil {
				detail += fmt.Sprintf(", exit %d", *a.ExitCode)
			}
			if a.Reason != "" {
				detail += " (" + a.Reason + ")"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.At.Format("2006-01-02 15:04"), r.Kind+" "+r.Event,
			sanitize.Terminal(r.Resource, 48), sanitize.Terminal(r.Team, 24), burnt, sanitize.Terminal(detail, 160))
		if a := r.Action; a != nil && a.Output != "" && output {
			for _, l := range strings.Split(strings.TrimRight(a.Output, "\n"), "\n") {
				fmt.Fprintf(tw, "\t\t\t\t\t| %s\n", sanitize.Terminal(l, 160))
			}
		}
	}
	return tw.Flush()
}
