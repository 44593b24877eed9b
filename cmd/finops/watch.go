package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/sanitize"
	"github.com/finops-oss/finops/store"
	"github.com/finops-oss/finops/watch"
	"github.com/spf13/cobra"
)

// watchCommand is `finops watch`: one pass (cron, a systemd timer), or one
// pass every --every in the foreground (a container).
func (m *Main) watchCommand() *cobra.Command {
	var every, since string
	var dryRun, history bool
	cmd := &cobra.Command{
		Use:   "watch [--every 5m] [--dry-run] | watch --history [--since 7d]",
		Short: "Alert on idle GPU resources within the hour, and recycle them when allowed",
		Long: "One pass reads the last watch.lookback of telemetry (only what is new since the last pass),\n" +
			"joins it to the billed resources as the report does and applies the report's idle rule. A\n" +
			"resource idle for watch.alert_after gets one alert per idle spell (reminders every\n" +
			"watch.remind_every, a message when it is busy again or released), on the channels under\n" +
			"watch.channels. With on_idle and watch.act: true, an allowed resource gets a grace alert and is\n" +
			"then stopped by the command you give (run without a shell); without act it is a dry run.\n" +
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
			var period time.Duration
			if every != "" {
				if period, err = config.ParseDuration(every); err != nil || period < time.Minute {
					return usagef("--every %q: want a duration of at least 1m, e.g. 5m", every)
				}
			}
			for {
				err := m.watchPass(ctx, c, dryRun)
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
	f.BoolVar(&dryRun, "dry-run", false, "decide and record as usual, but run no command (as without watch.act)")
	f.BoolVar(&history, "history", false, "list the watch's decisions and commands instead of watching")
	f.StringVar(&since, "since", "", "with --history: how far back (default 7d)")
	return cmd
}

// watchPass is one pass: take the locks, read the new telemetry, decide,
// record the decisions (before anything is sent or run), run the allowed
// commands, let go of the run lock, deliver the messages and record how
// they fared.
func (m *Main) watchPass(ctx context.Context, c *config.Config, dryRun bool) error {
	st, err := m.openStore(ctx, c)
	if err != nil {
		return err
	}
	defer st.Close()
	now := m.Now().UTC()
	// Two locks. The run lock, shared with the weekly run and restore, is
	// held only while the pass works on the database — reading, deciding,
	// recording, running the commands (whose outcomes are written as they
	// end) — and released before the messages go out: sending is network
	// I/O, up to watch.pass_timeout, and a weekly run that meets a pass
	// waits for the run lock, so it would wait for a hung webhook too
	// (issue #26: 660 s for 22 messages, and the run gave up). What was
	// sent is recorded after (recordDeliveries). The pass lock
	// (<db>.watch.lock, taken by passes only) is held for the whole pass,
	// so that a pass starting while another still sends never sends the
	// same pending messages; it is named after the database file, links
	// resolved, as the run lock is.
	passLock, err := store.AcquireRunLock(store.RealPath(st.Path())+".watch", watchLockJob, now)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return busyError{fmt.Errorf("watch: another watch pass is still running: %w", err)}
		}
		return err
	}
	defer passLock.Release()
	lock, err := store.AcquireRunLock(st.Path(), watchLockJob, now)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return busyError{err}
		}
		return err
	}
	defer lock.Release()
	if n, err := st.InterruptPendingActions(ctx, now); err != nil {
		return err
	} else if n > 0 {
		fmt.Fprintf(m.Stdout, "watch: %d command(s) of an earlier pass were interrupted while running; they are not run again (finops watch --history)\n", n)
	}
	set := c.Watch.Settings()
	obs, err := m.observe(ctx, st, c, now)
	if err != nil {
		return err
	}
	// --quiet: the problems and the one-line summary only.
	notes := m.Stdout
	if m.quiet {
		notes = io.Discard
	}
	for _, w := range obs.warnings {
		fmt.Fprintf(notes, "watch: %s\n", w)
	}
	lines := printTails(notes, obs.tails)
	spells, err := st.OpenSpells(ctx)
	if err != nil {
		return err
	}
	p := watch.Params{AlertAfter: set.AlertAfter, RemindEvery: set.RemindEvery, Grace: set.Grace,
		Stale: staleAfter, From: obs.from, TelemetryOK: obs.telemetryOK, Act: c.Watch.Act && !dryRun,
		MaxActions: set.MaxActions}
	if loc, err := c.Location(); err == nil {
		p.Zone = loc // the messages' times in the report's zone (config validation checked it)
	}
	targets := watchTargets(c, obs.resources)
	decisions := watch.Decide(now, p, targets, fromLedger(spells))
	events := m.watchEvents(c, decisions)
	var cursors []store.FileCursor
	for _, r := range obs.tails {
		cursors = append(cursors, r.cursor)
	}
	if m.watchBeforeLedger != nil {
		if err := m.watchBeforeLedger(); err != nil {
			return err
		}
	}
	pending, err := st.RecordWatch(ctx, now, events, cursors)
	if err != nil {
		return err
	}
	for _, d := range decisions {
		fmt.Fprintf(notes, "watch: %s\n", d.Message.Title)
		if d.Kind == watch.Act && strings.HasPrefix(d.Reason, watch.UnsafeReason) {
			// Even with --quiet: a bill naming a resource like a shell
			// command or an option is worth a person's look.
			fmt.Fprintf(m.Stdout, "watch: %s %s: refused: %s\n", d.Action, sanitize.Control(d.Spell.Resource), d.Reason)
		}
	}
	fmt.Fprintf(m.Stdout, "watch: %d resources, %d decisions, %d new log lines\n", len(obs.resources), len(decisions), lines)
	var errs []error
	if len(pending) > 0 {
		errs = append(errs, m.runActions(ctx, st, c, pending))
	}
	msgs, err := st.PendingWatchMessages(ctx)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	dbFile, err := os.Stat(st.Path())
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("watch: %w", err))...)
	}
	lock.Release() // see above: the database work is done; recordDeliveries takes it again
	sent, err := m.sendAlerts(ctx, c, msgs)
	if err != nil {
		errs = append(errs, publishError{err})
	}
	if err := m.recordDeliveries(ctx, st, dbFile, sent); err != nil {
		errs = append(errs, publishError{err})
	}
	if !obs.telemetryOK {
		errs = append(errs, partialError{fmt.Errorf("watch: %s", obs.telemetryErr)})
	}
	return errors.Join(errs...)
}

// staleAfter: telemetry older than this says nothing about now. Three
// scrapes of a 5-minute sampler, with room for a late Prometheus.
const staleAfter = 15 * time.Minute

// fromLedger turns the store's open spells into the decision logic's.
func fromLedger(in []store.WatchSpell) []watch.Spell {
	out := make([]watch.Spell, len(in))
	for i, s := range in {
		out[i] = watch.Spell{ID: s.ID, Resource: s.Resource, Team: s.Team, Kind: s.Kind, Since: s.Since,
			Opened: s.Opened, Reminded: s.Reminded, Graced: s.Graced, Acted: s.Acted, Rate: s.Rate, RateKnown: s.RateKnown, Currency: s.Currency}
	}
	return out
}

// watchEvents turns decisions into what the ledger records: each message
// goes to the channels that take its team; an action is pending when it is
// to run, else recorded with its outcome (dry run, refused) at once.
func (m *Main) watchEvents(c *config.Config, ds []watch.Decision) []store.WatchEvent {
	out := make([]store.WatchEvent, 0, len(ds))
	for _, d := range ds {
		r := d.Resource
		e := store.WatchEvent{SpellID: d.Spell.ID, Kind: d.Kind, SpellKind: d.Spell.Kind, Event: d.Event,
			Resource: d.Spell.Resource, Team: d.Spell.Team, Since: d.Spell.Since, Rate: r.HourlyRate, RateKnown: r.RateKnown,
			Currency: r.Currency, Title: d.Message.Title, Body: d.Message.Text, Burnt: d.Burnt, BurntKnown: d.RateKnown,
			CloseReason: d.Reason}
		if e.Team == "" {
			e.Team = r.Team
		}
		e.Channels = channelsFor(c, e.Team)
		if d.Kind == watch.Act {
			a := &store.WatchAction{Action: d.Action, Argv: d.Command, IdleSince: d.Spell.Since, Rate: r.HourlyRate,
				Currency: r.Currency, Outcome: store.ActionPending, Reason: d.Reason}
			switch {
			case d.Reason != "":
				a.Outcome = store.ActionRefused
			case d.DryRun:
				a.Outcome = store.ActionDryRun
			}
			e.Action = a
		}
		out = append(out, e)
	}
	return out
}

// observation is what a pass knows about now.
type observation struct {
	from         time.Time
	resources    []analysis.ResourceNow
	warnings     []string
	tails        []tailRead // the log files read, with their new cursors
	telemetryOK  bool
	telemetryErr string
}
