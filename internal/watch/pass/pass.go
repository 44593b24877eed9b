// Package pass is one pass of `finops watch` (docs/WATCH.md): it reads what
// is new from the telemetry sources into the store, decides with package
// watch, records the decisions in the store's ledger before anything is sent
// or run, runs the allowed commands and sends the messages. Package watch
// decides, purely; this package does the I/O around it.
package pass

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/watch"
)

// LockJob is how a watch pass names itself in the run lock's file: a weekly
// run that meets it waits for it rather than giving up.
const LockJob = "watch"

// Options is what one pass works with.
type Options struct {
	Config *config.Config
	Store  *store.Store
	// DryRun runs no command and sends no message: it decides, prints what
	// it would send and to whom, and records nothing but the telemetry it
	// read (and the logs' cursors), so a later pass decides afresh. With
	// SendAlerts it records and sends as usual and skips only the commands.
	DryRun     bool
	SendAlerts bool
	Now        func() time.Time
	Getenv     func(string) string
	// Out gets the pass's lines; with Quiet only its problems.
	Out   io.Writer
	Quiet bool

	// Tails are the logs read by their tail (nvidia-smi logs, NVML spools).
	Tails []Tail
	// Whole imports the telemetry files read whole (dcgm-exporter scrapes:
	// snapshots, not logs) and names each failure; nil when there are none.
	Whole func(ctx context.Context) []string

	// Decided, when set, gets the pass's counts once its decisions are
	// recorded, before any command runs or message goes out.
	Decided func(Outcome)

	// Channel, when set, gives the sender of a channel (tests: a recording
	// one); nil, or a nil result, builds the real one.
	Channel func(config.Channel) Sender
	// BeforeLedger, when set, runs after the pass stored its telemetry and
	// before it records its decisions and cursors; an error ends the pass
	// there (tests: a pass killed between the two).
	BeforeLedger func() error
	// TailReader, when set, wraps each log file read by its tail (tests:
	// count the bytes read).
	TailReader func(path string, r io.ReaderAt) io.ReaderAt
}

// Tail is one source of logs read by their tail.
type Tail struct {
	Pattern    string // path, folder or glob, as configured
	InProgress string // glob of the files still being written (an NVML spool's .csv.part), or ""
	// Parse is how its lines are read: nvidia-smi format, host, zone,
	// field list, catalog. Name is set per chunk.
	Parse ingest.Options
}

// Outcome is what a pass found and decided.
type Outcome struct {
	Resources int // billed or seen resources
	Decisions int
	Lines     int // new log lines read
}

// The errors of a pass that the CLI's exit codes tell apart. Each wraps
// what happened.
type (
	// BusyError: another pass, a run or a restore holds a lock; nothing done.
	BusyError struct{ Err error }
	// ConfigError: the configuration cannot be used.
	ConfigError struct{ Err error }
	// UndeliveredError: a message was not delivered (it stays pending).
	UndeliveredError struct{ Err error }
	// PartialError: a telemetry source failed; nothing was closed as released.
	PartialError struct{ Err error }
)

func (e BusyError) Error() string        { return e.Err.Error() }
func (e BusyError) Unwrap() error        { return e.Err }
func (e ConfigError) Error() string      { return e.Err.Error() }
func (e ConfigError) Unwrap() error      { return e.Err }
func (e UndeliveredError) Error() string { return e.Err.Error() }
func (e UndeliveredError) Unwrap() error { return e.Err }
func (e PartialError) Error() string     { return e.Err.Error() }
func (e PartialError) Unwrap() error     { return e.Err }

// staleAfter: telemetry older than this says nothing about now. Three
// scrapes of a 5-minute sampler, with room for a late Prometheus.
const staleAfter = 15 * time.Minute

// Run is one pass: take the locks, read the new telemetry, decide, record
// the decisions (before anything is sent or run), run the allowed commands,
// let go of the run lock, deliver the messages and record how they fared.
func Run(ctx context.Context, o Options) (Outcome, error) {
	var res Outcome
	c, st := o.Config, o.Store
	now := o.Now().UTC()
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
	passLock, lock, err := takeLocks(st, now)
	if err != nil {
		return res, err
	}
	defer passLock.Release()
	defer lock.Release()
	if n, err := st.InterruptPendingActions(ctx, now); err != nil {
		return res, err
	} else if n > 0 {
		fmt.Fprintf(o.Out, "watch: %d command(s) of an earlier pass were interrupted while running; they are not run again (finops watch --history)\n", n)
	}
	obs, err := observe(ctx, o, now)
	if err != nil {
		return res, err
	}
	// Quiet: the problems and the one-line summary only.
	notes := o.Out
	if o.Quiet {
		notes = io.Discard
	}
	for _, w := range obs.warnings {
		fmt.Fprintf(notes, "watch: %s\n", w)
	}
	res.Lines = printTails(notes, obs.tails)
	spells, err := st.OpenSpells(ctx)
	if err != nil {
		return res, err
	}
	p := watchParams(o, obs)
	targets := watchTargets(c, obs.resources)
	decisions := watch.Decide(now, p, targets, fromLedger(spells))
	events := watchEvents(c, decisions)
	var cursors []store.FileCursor
	for _, r := range obs.tails {
		cursors = append(cursors, r.cursor)
	}
	if o.BeforeLedger != nil {
		if err := o.BeforeLedger(); err != nil {
			return res, err
		}
	}
	dryRun := o.DryRun && !o.SendAlerts
	recorded := events
	if dryRun {
		// The telemetry is stored and its cursors move, as any pass's; the
		// decisions are not recorded, so nothing is pending to be sent and
		// the next pass decides afresh.
		recorded = nil
	}
	pending, err := st.RecordWatch(ctx, now, recorded, cursors)
	if err != nil {
		return res, err
	}
	printDecisions(notes, o.Out, decisions)
	res.Resources, res.Decisions = len(obs.resources), len(decisions)
	if o.Decided != nil {
		o.Decided(res)
	}
	if dryRun {
		left, err := st.PendingWatchMessages(ctx)
		if err != nil {
			return res, err
		}
		printDryRun(o.Out, c, now, events, left)
		if !obs.telemetryOK {
			return res, PartialError{fmt.Errorf("watch: %s", obs.telemetryErr)}
		}
		return res, nil
	}
	return res, deliverPass(ctx, o, lock, pending, obs)
}

// takeLocks takes the pass lock, then the run lock (Run says why two);
// either held by someone else is a BusyError.
func takeLocks(st *store.Store, now time.Time) (passLock, lock *store.RunLock, err error) {
	passLock, err = store.AcquireRunLock(store.RealPath(st.Path())+".watch", LockJob, now)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return nil, nil, BusyError{fmt.Errorf("watch: another watch pass is still running: %w", err)}
		}
		return nil, nil, err
	}
	lock, err = store.AcquireRunLock(st.Path(), LockJob, now)
	if err != nil {
		passLock.Release()
		if errors.Is(err, store.ErrLocked) {
			return nil, nil, BusyError{err}
		}
		return nil, nil, err
	}
	return passLock, lock, nil
}

// watchParams are the decision logic's settings for this pass.
func watchParams(o Options, obs *observation) watch.Params {
	c := o.Config
	set := c.Watch.Settings()
	p := watch.Params{AlertAfter: set.AlertAfter, RemindEvery: set.RemindEvery, Grace: set.Grace,
		Stale: staleAfter, From: obs.from, TelemetryOK: obs.telemetryOK, Act: c.Watch.Act && !o.DryRun,
		MaxActions: set.MaxActions}
	if loc, err := c.Location(); err == nil {
		p.Zone = loc // the messages' times in the report's zone (config validation checked it)
	}
	return p
}

// printDecisions says each decision's title in notes, and each refused
// action in out even when quiet: a bill naming a resource like a shell
// command or an option is worth a person's look.
func printDecisions(notes, out io.Writer, decisions []watch.Decision) {
	for _, d := range decisions {
		fmt.Fprintf(notes, "watch: %s\n", d.Message.Title)
		if d.Kind == watch.Act && strings.HasPrefix(d.Reason, watch.UnsafeReason) {
			fmt.Fprintf(out, "watch: %s %s: refused: %s\n", d.Action, sanitize.Control(d.Spell.Resource), d.Reason)
		}
	}
}

// deliverPass runs the pending actions, lets go of the run lock, sends the
// pending messages and records how they fared; a pass whose telemetry
// failed ends in a PartialError.
func deliverPass(ctx context.Context, o Options, lock *store.RunLock, pending []int64, obs *observation) error {
	st := o.Store
	var errs []error
	if len(pending) > 0 {
		errs = append(errs, runActions(ctx, o, pending))
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
	sent, err := sendAlerts(ctx, o, msgs)
	if err != nil {
		errs = append(errs, UndeliveredError{err})
	}
	if err := recordDeliveries(ctx, o, dbFile, sent); err != nil {
		errs = append(errs, UndeliveredError{err})
	}
	if !obs.telemetryOK {
		errs = append(errs, PartialError{fmt.Errorf("watch: %s", obs.telemetryErr)})
	}
	return errors.Join(errs...)
}

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
func watchEvents(c *config.Config, ds []watch.Decision) []store.WatchEvent {
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

// Sources sorts the config's sources for a pass: nvidia-smi logs and NVML
// spools are read by their tail; the other telemetry files (dcgm-exporter
// scrapes, snapshots: an unchanged one is skipped by its digest) are
// imported whole (Options.Whole); billing and task files are not the
// watch's.
func Sources(c *config.Config, specs []source.Spec) (tails []Tail, whole []source.Spec) {
	for _, s := range specs {
		switch {
		case s.Kind != ingest.KindUtilization:
		case s.Format == ingest.FormatNvidiaSMI:
			tails = append(tails, Tail{Pattern: s.Name, InProgress: s.InProgress, Parse: s.ParseOptions(c, s.Name)})
		default:
			whole = append(whole, s)
		}
	}
	return tails, whole
}
