package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/analysisconf"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/store"
)

func (m *Main) reviewCommand() *cobra.Command {
	var quarter, out string
	cmd := &cobra.Command{
		Use:   "review --quarter 2026Q4",
		Short: "Write the quarterly rent-or-buy review per GPU model",
		Long: "review compares, per GPU model, what owning a card would cost a month (purchase assumptions under\n" +
			"purchase in the config) with renting it at the utilization observed over the quarter, and says whether\n" +
			"to buy: only when utilization beat breakeven by the margin this quarter and the one before. A quarter\n" +
			"counts only when telemetry saw enough of its hours (min_coverage under purchase, default 0.5); with\n" +
			"gaps, utilization is a lower bound (\"≥ 19.1%\"). It writes\n" +
			"finops-review-<quarter>.xlsx, .html and .json and prints a summary.",
		Example: "  finops review --quarter 2026Q4\n  finops review --quarter 2026Q4 --out reports/",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if quarter == "" {
				return usagef("--quarter is required, e.g. --quarter 2026Q4")
			}
			c, loc, err := m.loadConfig()
			if err != nil {
				return err
			}
			q, prev, err := config.Quarter(quarter, loc)
			if err != nil {
				return usageError{err}
			}
			now := m.Now()
			if !now.After(q.Start) {
				return usagef("--quarter %s has not started yet", q.Label)
			}
			st, err := m.openExistingStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			rv, err := m.review(cmd.Context(), st, c, analysis.Window(q), analysis.Window(prev), now)
			if err != nil {
				return err
			}
			paths, err := report.WriteReviewAll(outDir(c, out), rv, report.Meta{GeneratedAt: now, Version: m.Version})
			if err != nil {
				return err
			}
			if m.quiet {
				return nil // as report: the files written, no summary
			}
			if err := report.WriteReviewSummary(m.Stdout, rv); err != nil {
				return err
			}
			for _, p := range paths {
				fmt.Fprintf(m.Stdout, "wrote %s\n", p)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&quarter, "quarter", "", "the quarter to review, e.g. 2026Q4 (required)")
	f.StringVar(&out, "out", "", "output folder (default from config, else ./out)")
	return cmd
}

// review analyses the quarter (up to now when it is still running) and the
// quarter before, and computes the rent-or-buy review.
func (m *Main) review(ctx context.Context, st *store.Store, c *config.Config, q, prev analysis.Window,
	now time.Time) (*analysis.Review, error) {
	win := q
	if end := now.Truncate(time.Minute); end.Before(win.End) {
		win.End = end.UTC()
	}
	// Each quarter's input lives only inside analyseWindow: the first is
	// garbage, and its lines were never held, when the second is loaded.
	cur, err := m.analyseWindow(ctx, st, c, win)
	if err != nil {
		return nil, err
	}
	before, err := m.analyseWindow(ctx, st, c, prev)
	if err != nil {
		return nil, err
	}
	params, err := analysisconf.Params(c)
	if err != nil {
		return nil, usageError{err}
	}
	rv, err := analysis.RentOrBuy(&analysis.ReviewInput{
		Quarter: q, Previous: prev, Current: cur, PreviousResult: before, AsOf: now,
		Purchases: analysisconf.PurchaseAssumptions(c), Prices: analysisconf.Prices(c), Resources: analysisconf.Resources(c),
		Params: params,
	})
	if err != nil {
		return nil, usageError{err}
	}
	return rv, nil
}

// analyseWindow loads a window from the store like report does and analyses it.
func (m *Main) analyseWindow(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window) (*analysis.Result, error) {
	// The review compares with the quarter before itself (RentOrBuy's
	// PreviousResult), and has no per-GPU hourly view. Its quarter of lines
	// is walked from the store, never held (BENCHMARKS.md §A year of history).
	in, err := reportjob.Load(ctx, st, c, win, reportjob.Options{Outlines: true, HoldLines: 0})
	if err != nil {
		return nil, err
	}
	in.SkipHourly = true
	return reportjob.Analyze(ctx, in)
}
