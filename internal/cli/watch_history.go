package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/watch/pass"
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
	return pass.WriteHistory(m.Stdout, recs, m.verbose) // -v: each command's output too
}
