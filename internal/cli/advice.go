package cli

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/advicejob"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/store"
)

// `finops advice`: the recommendations of a window by their stable ids, and
// what someone decided about them (analysis/advice.go decides what is open;
// store/advice.go keeps the decisions).

// maxWhy is the longest --why kept: a note, not a document.
const maxWhy = 1000

func (m *Main) adviceCommand() *cobra.Command {
	var wf config.Period
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
	pf.StringVar(&wf.Since, "since", "", "the window of the advice: the last N complete days, e.g. 30d")
	pf.StringVar(&wf.Week, "week", "", "the window of the advice: one ISO week (default: the last complete week)")
	pf.StringVar(&wf.From, "from", "", "first day of the window (with --to)")
	pf.StringVar(&wf.To, "to", "", "last day of the window, inclusive")
	cmd.AddCommand(m.adviceListCommand(&wf),
		m.adviceDecideCommand(&wf, analysis.AdviceDone, "done", "Mark advice done: it leaves the reports, which then show what it saved"),
		m.adviceDecideCommand(&wf, analysis.AdviceDismissed, "dismiss", "Dismiss advice: it leaves the reports for good"),
		m.adviceDecideCommand(&wf, analysis.AdviceSnoozed, "snooze", "Hide advice until a date (default: 4 weeks from today)"))
	return cmd
}

func (m *Main) adviceListCommand(wf *config.Period) *cobra.Command {
	var all bool
	var team string
	cmd := &cobra.Command{
		Use:   "list [--all] [--team NAME]",
		Short: "List the open advice of the window (--all: the decided advice too, with its decision)",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := m.openAdvice(cmd.Context(), *wf)
			if err != nil {
				return err
			}
			defer a.st.Close()
			entries := a.List(m.Now(), all)
			if cmd.Flags().Changed("team") {
				name, err := a.Team(team)
				if err != nil {
					return err // a reportjob.ConfigError: exit 2
				}
				entries = a.ForTeam(entries, name)
			}
			if m.jsonResults() {
				return emitJSON(m.Stdout, a.ListResult(entries))
			}
			return a.WriteList(m.Stdout, entries, all, a.loc)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also the advice marked done, dismissed or snoozed, with the decision")
	cmd.Flags().StringVar(&team, "team", "", "only the advice on this configured team's resources")
	return cmd
}

func (m *Main) adviceDecideCommand(wf *config.Period, decision, verb, short string) *cobra.Command {
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
				if d.Until, err = advicejob.SnoozeUntil(until, m.Now(), a.loc); err != nil {
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

// adviceState is a window's advice (advicejob.State) and where it was read.
type adviceState struct {
	*advicejob.State
	st  *store.Store
	loc *time.Location
}

func (m *Main) openAdvice(ctx context.Context, wf config.Period) (*adviceState, error) {
	c, loc, err := m.loadConfig()
	if err != nil {
		return nil, err
	}
	st, err := m.openExistingStore(ctx, c)
	if err != nil {
		return nil, err
	}
	a := &adviceState{st: st, loc: loc}
	if wf == (config.Period{}) {
		wf, err = advicejob.LastRun(ctx, st)
	}
	var win analysis.Window
	if err == nil {
		win, err = ReportWindow(wf, m.Now(), loc)
	}
	if err == nil {
		a.State, err = advicejob.Open(ctx, st, c, win, m.holdLines)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return a, nil
}

// decideAdvice records d about the advice id names, under the run lock.
func (m *Main) decideAdvice(ctx context.Context, a *adviceState, id string, d store.AdviceDecision) error {
	lock, err := m.AcquireRunLock(ctx, a.st.Path(), "advice "+d.Decision)
	if err != nil {
		return err // store.ErrLocked: exit 5
	}
	defer lock.Release()
	e, d, err := a.Decide(ctx, a.st, id, d, m.Now())
	if err != nil {
		return err
	}
	if m.jsonResults() {
		return emitJSON(m.Stdout, a.DecisionResult(e, d))
	}
	fmt.Fprintln(m.Stdout, advicejob.DecisionLine(e, d, a.loc))
	return nil
}
