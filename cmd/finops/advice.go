package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/sanitize"
	"github.com/finops-oss/finops/store"
	"github.com/spf13/cobra"
)

// `finops advice`: the recommendations of a window by their stable ids, and
// what someone decided about them (analysis/advice.go decides what is open;
// store/advice.go keeps the decisions).

// adviceVerb is the subcommand that records a decision.
func adviceVerb(decision string) string {
	switch decision {
	case analysis.AdviceDismissed:
		return "dismiss"
	case analysis.AdviceSnoozed:
		return "snooze"
	}
	return decision
}

// defaultSnooze is how long `advice snooze` hides advice without --until.
const defaultSnooze = 28 * 24 * time.Hour

// maxWhy is the longest --why kept: a note, not a document.
const maxWhy = 1000

func (m *Main) adviceCommand() *cobra.Command {
	var wf windowFlags
	cmd := &cobra.Command{
		Use:   "advice",
		Short: "List the recommendations by id, and mark them done, dismissed or snoozed",
		Long: "advice lists the recommendations of the latest report `finops run` made, else of the last complete\n" +
			"week (or of the window --week, --since or --from/--to name) by their ids, which stay the same week after week for the same advice on the same\n" +
			"resource. Advice marked done, dismissed, or snoozed until a date no longer shows in the reports\n" +
			"(a snooze shows again once its date has passed); done advice shows what it really saved.",
		Args: usageArgs(cobra.NoArgs),
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&wf.since, "since", "", "the window of the advice: the last N complete days, e.g. 30d")
	pf.StringVar(&wf.week, "week", "", "the window of the advice: one ISO week (default: the last complete week)")
	pf.StringVar(&wf.from, "from", "", "first day of the window (with --to)")
	pf.StringVar(&wf.to, "to", "", "last day of the window, inclusive")
	cmd.AddCommand(m.adviceListCommand(&wf),
		m.adviceDecideCommand(&wf, analysis.AdviceDone, "done", "Mark advice done: it leaves the reports, which then show what it saved"),
		m.adviceDecideCommand(&wf, analysis.AdviceDismissed, "dismiss", "Dismiss advice: it leaves the reports for good"),
		m.adviceDecideCommand(&wf, analysis.AdviceSnoozed, "snooze", "Hide advice until a date (default: 4 weeks from today)"))
	return cmd
}

func (m *Main) adviceListCommand(wf *windowFlags) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "list [--all]",
		Short: "List the open advice of the window (--all: the decided advice too, with its decision)",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := m.openAdvice(cmd.Context(), *wf)
			if err != nil {
				return err
			}
			defer a.st.Close()
			entries := analysis.AdviceList(a.res.Recommendations, a.decisions, m.Now(), all)
			if m.jsonResults() {
				return emitJSON(m.Stdout, adviceListResult(a, entries))
			}
			m.printAdvice(a, entries, all)
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also the advice marked done, dismissed or snoozed, with the decision")
	return cmd
}

func (m *Main) adviceDecideCommand(wf *windowFlags, decision, verb, short string) *cobra.Command {
	var why, until string
	cmd := &cobra.Command{
		Use:   verb + " ID [--why TEXT]",
		Short: short,
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if utf8.RuneCountInString(why) > maxWhy || !utf8.ValidString(why) {
				return usagef("--why: at most %d characters of UTF-8 text", maxWhy)
			}
			a, err := m.openAdvice(cmd.Context(), *wf)
			if err != nil {
				return err
			}
			defer a.st.Close()
			// Stored in whole seconds: what is printed is what is kept.
			d := store.AdviceDecision{Decision: decision, Why: why, DecidedAt: m.Now().UTC().Truncate(time.Second)}
			if decision == analysis.AdviceSnoozed {
				if d.Until, err = snoozeUntil(until, m.Now(), a.loc); err != nil {
					return err
				}
			}
			return m.decideAdvice(cmd.Context(), a, args[0], d)
		},
	}
	cmd.Flags().StringVar(&why, "why", "", "why, kept with the decision (shown by advice list --all)")
	if decision == analysis.AdviceSnoozed {
		cmd.Use = verb + " ID [--until DATE] [--why TEXT]"
		cmd.Flags().StringVar(&until, "until", "", "show the advice again from this date (YYYY-MM-DD, in the config's timezone; default: 4 weeks from today; not today or earlier)")
	}
	return cmd
}

// snoozeUntil is the instant a snooze ends: the start of the day --until
// names, in loc, which must be after now; without it, the start of the day 4
// weeks from today.
func snoozeUntil(flag string, now time.Time, loc *time.Location) (time.Time, error) {
	if flag == "" {
		y, mo, d := now.In(loc).Add(defaultSnooze).Date()
		return time.Date(y, mo, d, 0, 0, 0, 0, loc).UTC(), nil
	}
	t, err := time.ParseInLocation("2006-01-02", flag, loc)
	if err != nil {
		return time.Time{}, usagef("--until %q: want a date like 2026-12-31", flag)
	}
	if err := config.CheckYear("--until", flag, t.Year()); err != nil {
		return time.Time{}, usageError{err}
	}
	if !t.After(now) {
		return time.Time{}, usagef("--until %s is not in the future: give a later date", flag)
	}
	return t.UTC(), nil
}

// adviceState is a window's advice, all of it (no decision applied), and
// the current decisions.
type adviceState struct {
	st        *store.Store
	c         *config.Config
	loc       *time.Location
	win       analysis.Window
	res       *analysis.Result
	decisions []analysis.AdviceDecision
}

func (m *Main) openAdvice(ctx context.Context, wf windowFlags) (*adviceState, error) {
	c, loc, err := m.loadConfig()
	if err != nil {
		return nil, err
	}
	st, err := m.openExistingStore(ctx, c)
	if err != nil {
		return nil, err
	}
	a := &adviceState{st: st, c: c, loc: loc}
	if wf == (windowFlags{}) {
		wf, err = lastRunWindow(ctx, st)
	}
	if err == nil {
		a.win, err = wf.resolve(m.Now(), loc)
	}
	var in *analysis.Input
	if err == nil {
		in, err = loadInput(ctx, st, c, a.win, loadOptions{outlines: true, holdLines: m.holdLines})
	}
	if err == nil {
		in.SkipHourly = true
		a.res, err = analyze(ctx, in)
	}
	if err == nil {
		a.decisions, err = adviceDecisions(ctx, st)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return a, nil
}

// lastRunWindow names the window of the latest report `finops run` made
// (the one its team leads were sent), or none: the last complete week.
func lastRunWindow(ctx context.Context, st *store.Store) (windowFlags, error) {
	runs, err := st.Runs(ctx, "")
	if err != nil {
		return windowFlags{}, err
	}
	for i := len(runs) - 1; i >= 0; i-- {
		if r := runs[i]; r.Report == store.StageOK || r.Report == store.StagePartial {
			if config.IsWeekLabel(r.Period) {
				return windowFlags{week: r.Period}, nil
			}
			if from, to, ok := strings.Cut(r.Period, "_"); ok {
				return windowFlags{from: from, to: to}, nil
			}
		}
	}
	return windowFlags{}, nil
}

// decideAdvice records d about the advice id names, under the run lock.
func (m *Main) decideAdvice(ctx context.Context, a *adviceState, id string, d store.AdviceDecision) error {
	lock, err := m.acquireRunLock(ctx, a.st.Path(), "advice "+d.Decision)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return busyError{err}
		}
		return err
	}
	defer lock.Release()
	e, err := analysis.FindAdvice(analysis.AdviceList(a.res.Recommendations, a.decisions, m.Now(), true), id)
	if err != nil {
		return usageError{err}
	}
	d.ID, d.ResourceID, d.Action = e.ID, e.ResourceID, e.Action
	d.Baseline, d.Expected, d.Currency = e.CurrentMonthlyCost, e.MonthlySavings, a.res.Currency
	if err := a.st.RecordAdviceDecision(ctx, d); err != nil {
		return err
	}
	if m.jsonResults() {
		r := adviceEntry{ID: e.ID, ResourceID: e.ResourceID, Action: e.Action,
			MonthlySavings: amount.RoundMinor(a.res.Currency, e.MonthlySavings), Decision: d.Decision,
			DecidedAt: &d.DecidedAt, Why: d.Why}
		if !d.Until.IsZero() {
			r.Until = &d.Until
		}
		return emitJSON(m.Stdout, struct {
			Command string `json:"command"`
			adviceEntry
		}{"advice " + adviceVerb(d.Decision), r})
	}
	what := d.Decision
	if d.Decision == analysis.AdviceSnoozed {
		what += " until " + d.Until.In(a.loc).Format("2006-01-02")
	}
	fmt.Fprintf(m.Stdout, "%s (%s %s) %s\n", e.ID, strings.ReplaceAll(e.Action, "_", " "), sanitize.Control(e.ResourceID), what)
	return nil
}

func (m *Main) printAdvice(a *adviceState, entries []analysis.AdviceEntry, all bool) {
	if len(entries) == 0 {
		what := "open advice"
		if all {
			what = "advice"
		}
		fmt.Fprintf(m.Stdout, "no %s in %s\n", what, a.win.Label)
		return
	}
	fmt.Fprintf(m.Stdout, "advice of %s\n", a.win.Label)
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRESOURCE\tACTION\tSAVES/MONTH\tSTATE\tWHY")
	for _, e := range entries {
		state, why := "open", ""
		if d := e.Decision; d != nil {
			state = d.Decision + " " + d.DecidedAt.In(a.loc).Format("2006-01-02")
			if d.Decision == analysis.AdviceSnoozed {
				state = "snoozed until " + d.Until.In(a.loc).Format("2006-01-02")
				if e.Open {
					state += " (passed)"
				}
			}
			why = sanitize.Truncate(sanitize.Control(d.Why), 60)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, sanitize.Control(e.ResourceID), e.Action,
			amount.Rounded(a.res.Currency, e.MonthlySavings), state, why)
	}
	tw.Flush()
}

// adviceEntry is one piece of advice in the JSON results of finops advice
// (--log-format json); Why is what someone typed, as typed.
type adviceEntry struct {
	ID             string     `json:"id"`
	ResourceID     string     `json:"resource_id"`
	Action         string     `json:"action"`
	MonthlySavings float64    `json:"monthly_savings"`
	Open           bool       `json:"open"`
	Decision       string     `json:"decision,omitempty"`
	DecidedAt      *time.Time `json:"decided_at,omitempty"`
	Until          *time.Time `json:"until,omitempty"`
	Why            string     `json:"why,omitempty"`
}

func adviceListResult(a *adviceState, entries []analysis.AdviceEntry) any {
	list := make([]adviceEntry, 0, len(entries))
	for _, e := range entries {
		r := adviceEntry{ID: e.ID, ResourceID: e.ResourceID, Action: e.Action,
			MonthlySavings: amount.RoundMinor(a.res.Currency, e.MonthlySavings), Open: e.Open}
		if d := e.Decision; d != nil {
			r.Decision, r.DecidedAt, r.Why = d.Decision, &d.DecidedAt, d.Why
			if !d.Until.IsZero() {
				r.Until = &d.Until
			}
		}
		list = append(list, r)
	}
	return struct {
		Command  string        `json:"command"`
		Period   string        `json:"period"`
		Currency string        `json:"currency"`
		Advice   []adviceEntry `json:"advice"`
	}{"advice list", a.win.Label, a.res.Currency, list}
}

// adviceDecisions are the store's current decisions as the analysis takes them.
func adviceDecisions(ctx context.Context, st *store.Store) ([]analysis.AdviceDecision, error) {
	rows, err := st.AdviceDecisions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]analysis.AdviceDecision, len(rows))
	for i, d := range rows {
		out[i] = analysis.AdviceDecision{ID: d.ID, Decision: d.Decision, Until: d.Until, Why: d.Why,
			DecidedAt: d.DecidedAt, ResourceID: d.ResourceID, Action: d.Action, Baseline: d.Baseline,
			Expected: d.Expected, Currency: d.Currency}
	}
	return out, nil
}

// adviceInput is what a report of win needs of the decisions: all of them,
// and the lines of the resources of done advice from 4 weeks before the
// earliest decision to win's end, to measure what it saved.
func adviceInput(ctx context.Context, st *store.Store, win analysis.Window) (analysis.AdviceInput, error) {
	decs, err := adviceDecisions(ctx, st)
	if err != nil {
		return analysis.AdviceInput{}, err
	}
	in := analysis.AdviceInput{Decisions: decs}
	from := win.End
	var ids []string
	for _, d := range decs {
		if d.Decision == analysis.AdviceDone && d.DecidedAt.Before(win.End) {
			ids = append(ids, d.ResourceID)
			if t := d.DecidedAt.Add(-analysis.RealisedBefore); t.Before(from) {
				from = t
			}
		}
	}
	if in.Lines, err = st.ResourceLines(ctx, from, win.End, ids); err != nil {
		return analysis.AdviceInput{}, err
	}
	return in, nil
}
