package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/watch/pass"
)

// watchCommand is `finops watch`: one pass (cron, a systemd timer), or one
// pass every --every in the foreground (a container).
func (m *Main) watchCommand() *cobra.Command {
	var every, since string
	var dryRun, sendAlerts, history bool
	cmd := &cobra.Command{
		Use:   "watch [--every 5m] [--dry-run [--send-alerts]] | watch --history [--since 7d]",
		Short: "Alert on idle GPU resources within the hour, and recycle them when allowed",
		Long: "One pass reads the last watch.lookback of telemetry (only what is new since the last pass),\n" +
			"joins it to the billed resources as the report does and applies the report's idle rule. A\n" +
			"resource idle for watch.alert_after gets one alert per idle spell (reminders every\n" +
			"watch.remind_every, a message when it is busy again or released), on the channels under\n" +
			"watch.channels. With on_idle and watch.act: true, an allowed resource gets a grace alert and is\n" +
			"then stopped by the command you give (run without a shell; the bill's values reach it only as\n" +
			"FINOPS_* environment variables and JSON on stdin); without act it is a dry run.\n" +
			"--dry-run sends nothing and records no decision: it prints each message it would send and to\n" +
			"which channel; --dry-run --send-alerts sends the alerts as usual and skips only the commands.\n" +
			"Everything is recorded in the database: --history lists it. See docs/WATCH.md.\n\n" +
			"Exit 3: a telemetry source failed (nothing was closed as released). Exit 4: a message was not\n" +
			"delivered (sent again next pass). Exit 5: another run or pass holds the lock.",
		Example: "  finops watch                 # one pass, from cron or a systemd timer every 5 minutes\n" +
			"  finops watch --every 5m      # in the foreground, in a container\n" +
			"  finops watch --history --since 7d",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, _, err := m.loadConfig()
			if err != nil {
				return err
			}
			if history {
				return m.watchHistory(ctx, c, since)
			}
			if since != "" {
				return usagef("--since goes with --history")
			}
			if sendAlerts && !dryRun {
				return usagef("--send-alerts goes with --dry-run (without it, a pass sends its alerts anyway)")
			}
			var period time.Duration
			if every != "" {
				if period, err = config.ParseDuration(every); err != nil || period < time.Minute {
					return usagef("--every %q: want a duration of at least 1m, e.g. 5m", every)
				}
			}
			for {
				err := m.WatchPass(ctx, c, dryRun, sendAlerts)
				if period == 0 {
					return err
				}
				if err != nil {
					fmt.Fprintf(m.Stdout, "watch: %s\n", redact(err.Error()))
				}
				select {
				case <-ctx.Done():
					return nil // stopped (SIGTERM from the container runtime) between passes: a clean end
				case <-time.After(period):
				}
			}
		},
	}
	f := cmd.Flags()
	f.StringVar(&every, "every", "", "run a pass every duration in the foreground (e.g. 5m) instead of once")
	f.BoolVar(&dryRun, "dry-run", false, "decide, then print what would be sent and to which channel: send nothing, run no command, record no decision")
	f.BoolVar(&sendAlerts, "send-alerts", false, "with --dry-run: record and send the alerts as usual, run no command (as without watch.act)")
	f.BoolVar(&history, "history", false, "list the watch's decisions and commands instead of watching")
	f.StringVar(&since, "since", "", "with --history: how far back (default 7d)")
	return cmd
}

// WatchPass is one pass (pass.Run) over the config's telemetry sources; it
// prints the pass's one-line summary.
func (m *Main) WatchPass(ctx context.Context, c *config.Config, dryRun, sendAlerts bool) error {
	specs, err := source.FromConfig(c)
	if err != nil {
		return err
	}
	st, err := m.openStore(ctx, c)
	if err != nil {
		return err
	}
	defer st.Close()
	o := pass.Options{Config: c, Store: st, DryRun: dryRun, SendAlerts: sendAlerts, Now: m.Now, Getenv: m.Getenv, Out: m.Stdout, Quiet: m.quiet,
		Channel: m.WatchChannels, BeforeLedger: m.WatchBeforeLedger, TailReader: m.WatchTailReader,
		Decided: func(r pass.Outcome) {
			fmt.Fprintf(m.Stdout, "watch: %d resources, %d decisions, %d new log lines\n", r.Resources, r.Decisions, r.Lines)
		}}
	var whole []source.Spec
	o.Tails, whole = pass.Sources(c, specs)
	if len(whole) > 0 {
		o.Whole = func(ctx context.Context) []string {
			var failed []string
			results, _ := m.ingestSources(ctx, st, c, whole, io.Discard)
			for _, r := range results {
				if r.Err != nil {
					failed = append(failed, fmt.Sprintf("%s: %s", r.Name, redact(r.Err.Error())))
				}
			}
			return failed
		}
	}
	_, err = pass.Run(ctx, o)
	return err
}
