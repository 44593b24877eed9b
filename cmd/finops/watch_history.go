package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/internal/termcol"
	"github.com/finops-oss/finops/sanitize"
)

// watchHistory is `finops watch --history`: every decision of the period,
// oldest first, with each command's arguments, outcome, exit code and the
// end of its output.
func (m *Main) watchHistory(ctx context.Context, c *config.Config, since string) error {
	back := 7 * 24 * time.Hour
	if since != "" {
		d, err := config.ParseDuration(since)
		if err != nil || d <= 0 {
			return usagef("--since %q: want a duration, e.g. 7d or 12h", since)
		}
		back = d
	}
	st, err := m.openExistingStore(ctx, c)
	if err != nil {
		return err
	}
	defer st.Close()
	now := m.Now().UTC()
	recs, err := st.WatchHistory(ctx, now.Add(-back), now.Add(time.Minute))
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		fmt.Fprintf(m.Stdout, "no watch decisions in the last %s\n", config.FormatDuration(back))
		return nil
	}
	tw := termcol.NewWriter(m.Stdout)
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
		if a := r.Action; a != nil && a.Output != "" && m.verbose {
			for _, l := range strings.Split(strings.TrimRight(a.Output, "\n"), "\n") {
				fmt.Fprintf(tw, "\t\t\t\t\t| %s\n", sanitize.Terminal(l, 160))
			}
		}
	}
	return tw.Flush()
}
