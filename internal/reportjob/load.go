package reportjob

import (
	"context"
	"maps"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/analysisconf"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/store"
)

// Options says how much Load reads besides the window and the lookback
// before it.
type Options struct {
	Trends bool // also the previous window, the month to date and the weekly history
	// Outlines loads each GPU's first and last minute only, and its minutes
	// when the analysis reaches its resource (analysis.Input.LoadSeries),
	// dropped after it: a week of a 10,000-GPU fleet's minutes is 0.5 GB, its
	// four-week lookback 2 GB. The trends read no minutes, so each GPU's are
	// read once.
	Outlines bool
	// HoldLines is the most billing lines Load holds (analysis.Input.Lines);
	// a range with more has the analysis read them from the store as it goes
	// (analysis.Input.LineStream), in one walk for the window and its trends:
	// a week of a 10,000-GPU fleet's lines is hundreds of MB held whole. Zero
	// streams any lines (the review: a quarter's are always many); the
	// report's is HoldLines unless --hold-lines says otherwise.
	HoldLines int
}

// Load reads what the analysis needs: the window and the lookback before
// it, and what opt adds. A configuration the analysis cannot take (its
// parameters, a currency without a rate) is a ConfigError.
func Load(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window, opt Options) (*analysis.Input, error) {
	params, err := analysisconf.Params(c)
	if err != nil {
		return nil, ConfigError{err}
	}
	lb := analysis.Window{Start: win.End.Add(-c.Lookback()), End: win.End}
	from := lb.Start
	starts := []time.Time{win.Start}
	if opt.Trends {
		starts = append(starts, analysis.PreviousWindow(win).Start, analysis.MonthWindow(win, params.Location).Start)
		// The history's first week and the lookback a report of it has.
		if ws := analysis.HistoryWeeks(win, params.TrendWeeks, params.Location); len(ws) > 0 {
			starts = append(starts, ws[0].Start, ws[0].End.Add(-c.Lookback()))
		}
	}
	for _, t := range starts {
		if t.Before(from) {
			from = t
		}
	}
	in := &analysis.Input{Window: win, Lookback: lb, Params: params, Resources: analysisconf.Resources(c),
		Teams: analysisconf.Teams(c), Prices: analysisconf.Prices(c), SkipTrends: !opt.Trends}
	// The GPUs are read while the lines are summarised: two scans of two
	// tables on two connections (the summary was 12 s of the 10,000-GPU
	// year's report, the GPUs 3 s, one after the other).
	gpusRead := make(chan error, 1)
	go func() {
		var err error
		if opt.Outlines {
			in.GPUs, err = st.GPUOutlines(ctx, from, win.End)
		} else {
			in.GPUs, err = st.GPUSeries(ctx, from, win.End)
		}
		gpusRead <- err
	}()
	sum, err := st.LineSummary(ctx, from, win.End)
	if gpusErr := <-gpusRead; err == nil {
		err = gpusErr
	}
	if err != nil {
		return nil, err
	}
	if err := analysis.CheckCurrencies(maps.Clone(sum.Currencies), params); err != nil {
		return nil, ConfigError{err}
	}
	if sum.Count > opt.HoldLines {
		in.LineStream = LineStream(st, sum, from, win.End)
	} else if in.Lines, err = st.Lines(ctx, from, win.End); err != nil {
		return nil, err
	}
	if opt.Outlines {
		in.LoadSeries = LoadSeries(st, from, win.End)
		in.LoadSeriesRange = func(ctx context.Context, g *finops.GPUSeries, from, to time.Time) (finops.GPUSeries, error) {
			return LoadSeries(st, from, to)(ctx, g)
		}
	}
	if in.TaskRuns, err = st.TaskRuns(ctx, from, win.End); err != nil {
		return nil, err
	}
	if in.Rejected, err = st.RowsRejected(ctx, win.Start, win.End); err != nil {
		return nil, err
	}
	srcs, err := st.Sources(ctx)
	if err != nil {
		return nil, err
	}
	gpus, err := st.SourceGPUs(ctx, staleSince(win))
	if err != nil {
		return nil, err
	}
	in.Sources = sourceStatuses(srcs, gpus, win)
	in.SamplesDropped = droppedSamples(srcs, win)
	warns, err := st.Warnings(ctx, win.Start, win.End)
	if err != nil {
		return nil, err
	}
	in.IngestWarnings = ingestWarnings(warns)
	if in.Watch, err = watchActivity(ctx, st, win.Start, win.End); err != nil {
		return nil, err
	}
	return in, nil
}

// Report is Load of a report's window with its trends, its GPUs as outlines
// and holdLines lines held at most, and with what the report adds: the
// advice decisions and the lines they are measured on, and the data-quality
// box's sources, and the deliveries that replaced an earlier one of their
// period and lost money or charges (periodChanges). ingested, when not nil,
// says how this run's sources fared. missing names the sources missing or
// failed: each makes the report partial (Incomplete).
func Report(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window, holdLines int,
	ingested []Source) (in *analysis.Input, missing []string, err error) {
	if in, err = Load(ctx, st, c, win, Options{Trends: true, Outlines: true, HoldLines: holdLines}); err != nil {
		return nil, nil, err
	}
	if in.Advice, err = AdviceInput(ctx, st, win); err != nil {
		return nil, nil, err
	}
	failed, err := st.FailedImports(ctx)
	if err != nil {
		return nil, nil, err
	}
	missing = addSources(in, ingested, failed, win)
	changes, err := st.PeriodChanges(ctx, win.Start, win.End)
	if err != nil {
		return nil, nil, err
	}
	warns, partial := periodChanges(changes, c.MaxRestatementDrop())
	in.IngestWarnings = append(in.IngestWarnings, warns...)
	in.Sources = append(in.Sources, partial...)
	return in, missing, nil
}
