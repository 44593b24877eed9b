package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/report"
	"github.com/finops-oss/finops/store"
	"github.com/spf13/cobra"
)

func (m *Main) reportCommand() *cobra.Command {
	var wf windowFlags
	var out, formats, team string
	cmd := &cobra.Command{
		Use:   "report [--since 30d | --week 2026-W47 | --from DATE --to DATE]",
		Short: "Write the xlsx, html and json reports for a period and print a summary",
		Example: "  finops report --since 30d\n  finops report --week 2026-W47 --format json\n" +
			"  finops report --from 2026-11-01 --to 2026-11-30 --out reports/",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, loc, err := m.loadConfig()
			if err != nil {
				return err
			}
			win, err := wf.resolve(m.Now(), loc)
			if err != nil {
				return err
			}
			fs, err := reportFormats(c, formats)
			if err != nil {
				return err
			}
			st, err := m.openExistingStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			_, paths, err := m.writeTeamReports(cmd.Context(), st, c, win, nil, outDir(c, out), fs, strings.TrimSpace(team))
			if m.jsonResults() {
				r := reportResult{Command: "report", Period: win.Label, Team: strings.TrimSpace(team), Status: "ok", ExitCode: exitCode(err), Files: append([]string{}, paths...)}
				if err != nil {
					r.Status, r.Error = "failed", redact(err.Error())
					if r.ExitCode == ExitPartial {
						r.Status = "partial"
					}
				}
				err = errors.Join(err, emitJSON(m.Stdout, r))
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&wf.since, "since", "", "report the last N complete days, e.g. 30d, 2w (ending at today's 00:00 in the config's timezone)")
	f.StringVar(&wf.week, "week", "", "report one ISO week, e.g. 2026-W47 (default: the last complete week)")
	f.StringVar(&wf.from, "from", "", "first day of the report (with --to)")
	f.StringVar(&wf.to, "to", "", "last day of the report, inclusive")
	f.StringVar(&out, "out", "", "output folder (default from config, else ./out)")
	f.StringVar(&formats, "format", "", "comma-separated formats: xlsx,html,json,csv (default xlsx,html,json; csv is one file per table)")
	f.StringVar(&team, "team", "", "only this team's rows (files named finops-<period>-<team>.*)")
	return cmd
}

func outDir(c *config.Config, flag string) string {
	switch {
	case flag != "":
		return flag
	case c.Out != "":
		return c.Out
	}
	return "out"
}

func reportFormats(c *config.Config, flag string) ([]string, error) {
	if flag == "" {
		if len(c.Formats) > 0 {
			return c.Formats, nil
		}
		return report.DefaultFormats(), nil
	}
	var out []string
	valid := strings.Join(report.Formats(), ", ")
	for _, f := range strings.Split(flag, ",") {
		f = strings.TrimSpace(f)
		if !strings.Contains(", "+valid+", ", ", "+f+", ") {
			return nil, usagef("--format %q: want some of %s", f, valid)
		}
		out = append(out, f)
	}
	return out, nil
}

// writeReports loads the window and its lookback from the store, analyses it
// and writes the reports. ingested, when not nil, says how this run's sources
// fared; a missing source makes the result partial (exit 3).
func (m *Main) writeReports(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window,
	ingested []sourceResult, dir string, formats []string) (*analysis.Result, error) {
	res, _, err := m.writeTeamReports(ctx, st, c, win, ingested, dir, formats, "")
	return res, err
}

// writeTeamReports is writeReports for one team's slice (team != ""): only
// that team's rows, files named finops-<period>-<team>.*. It returns the
// result the reports show and the files written. In JSON mode it prints
// neither the summary nor the files: the caller's result names them.
func (m *Main) writeTeamReports(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window,
	ingested []sourceResult, dir string, formats []string, team string) (*analysis.Result, []string, error) {
	in, err := loadInput(ctx, st, c, win, loadOptions{trends: true, outlines: true, holdLines: m.holdLines})
	if err != nil {
		return nil, nil, err
	}
	if in.Advice, err = adviceInput(ctx, st, win); err != nil {
		return nil, nil, err
	}
	var missing []string
	if ingested != nil {
		// The run's own sources say how this run's ingest went; the
		// database says which telemetry stopped, whatever this run read.
		stale := slices.DeleteFunc(slices.Clone(in.Sources), func(s analysis.SourceStatus) bool { return s.Status != "stale" })
		in.Sources = nil
		for _, s := range ingested {
			// The data-quality box is uploaded and emailed: no address in
			// it may carry a password (redact).
			name := redact(s.spec.name)
			st := analysis.SourceStatus{Name: name, Kind: s.spec.kind, Status: "ok",
				Detail: fmt.Sprintf("%d files", s.files)}
			if s.detail != "" {
				st.Detail = s.detail
			}
			if s.err != nil {
				st.Status, st.Detail = "missing", redact(s.err.Error())
				if s.partial || s.files > s.failed && s.failed > 0 {
					st.Status = "partial"
				}
				missing = append(missing, name)
			}
			in.Sources = append(in.Sources, st)
		}
		in.Sources = append(in.Sources, stale...)
	}
	failed, err := st.FailedImports(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, st := range failedStatuses(failed, win, ingested) {
		in.Sources = append(in.Sources, st)
		missing = append(missing, st.Name)
	}
	res, err := analyze(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	if res.DataQuality.Clipped != "" {
		fmt.Fprintf(m.Stderr, "note: %s\n", res.DataQuality.Clipped)
	}
	sheets := m.bars().Sheets("workbook " + win.Label)
	defer sheets.Done()
	meta := report.Meta{GeneratedAt: m.Now(), Version: version, FX: in.Params.FX, Sheet: sheets.Sheet}
	var keep func(*finops.BillingLine) bool // nil: every line
	if team != "" {
		slice := res.ForTeam(team)
		if slice == nil {
			var names []string
			for _, t := range res.ByTeam {
				names = append(names, t.Team)
			}
			return nil, nil, usagef("--team %q: no such team in this period (teams: %s)", team, strings.Join(names, ", "))
		}
		res = slice
		meta.Team = slice.ByTeam[0].Team
		keep = c.TeamLineFilter(slice)
	}
	// The workbook's raw Billing lines sheet streams straight from the store,
	// even where the analysis held the lines: read again, they are not kept
	// alive through the workbook (on the 1,000-GPU week, 280 MB peak instead
	// of 368 MB, for 0.8 s more CPU).
	meta.Lines = st.LineStream(ctx, win.Start, win.End, keep)
	paths, err := report.WriteAllContext(ctx, dir, res, formats, meta)
	if err != nil {
		return res, nil, err
	}
	if m.jsonResults() || m.quiet {
		return res, paths, incompleteReport(missing, res)
	}
	// Colour only on a terminal, and never when NO_COLOR is set (no-color.org).
	color := interactive(m.Stdout) && m.Getenv("NO_COLOR") == ""
	summary := m.Stdout
	if color {
		summary = unfiltered(m.Stdout)
	}
	if err := report.WriteSummary(summary, res, meta, color); err != nil {
		return res, paths, err
	}
	for _, p := range paths {
		fmt.Fprintf(m.Stdout, "wrote %s\n", p)
	}
	return res, paths, incompleteReport(missing, res)
}

// failedLookback is how long before a report's window a failed import is
// still named in its data-quality box: a bill of last month that did not
// import still leaves this month's report without its lines.
const failedLookback = 31 * 24 * time.Hour

// failedStatuses words the failed imports no later import made good (a
// delivery with a bad file, a file refused for overlapping another) for
// the data-quality box; each makes the report partial (exit 3). A failure
// this run's own sources already name is not named twice.
func failedStatuses(failed []store.FailedImport, win analysis.Window, ingested []sourceResult) []analysis.SourceStatus {
	var out []analysis.SourceStatus
	for _, f := range failed {
		if f.At.Before(win.Start.Add(-failedLookback)) {
			continue
		}
		named := false
		for _, s := range ingested {
			if s.err != nil && strings.Contains(s.err.Error(), f.URI) {
				named = true
			}
		}
		if named {
			continue
		}
		out = append(out, analysis.SourceStatus{Name: redact(f.URI), Kind: "billing", Status: "failed",
			Detail: redact(fmt.Sprintf("did not import (%s): %s", f.At.Format(time.RFC3339), f.Error))})
	}
	return out
}

// incompleteReport is the partial result (exit 3) of a report written
// without some of its sources, or whose data the analysis found incomplete
// (a telemetry source that stopped, coverage below thresholds.min_coverage);
// nil when it is whole.
func incompleteReport(missing []string, res *analysis.Result) error {
	if err := missingSources(missing); err != nil {
		return err
	}
	if inc := res.DataQuality.Incomplete; len(inc) > 0 {
		return partialError{fmt.Errorf("report written, but its data is incomplete: %s", strings.Join(inc, "; "))}
	}
	return nil
}

// missingSources is the partial result (exit 3) of a report written
// without some of its sources, or nil when none is missing.
func missingSources(missing []string) error {
	if len(missing) == 0 {
		return nil
	}
	return partialError{fmt.Errorf("report written, but %d sources were missing or failed: %s",
		len(missing), strings.Join(missing, ", "))}
}

// analyze runs the analysis until ctx is done. Its refusals (a missing FX
// rate, an empty window) are configuration errors; a signal is not, nor the
// store failing under what it reads as it goes (storeReadError).
func analyze(ctx context.Context, in *analysis.Input) (*analysis.Result, error) {
	res, err := analysis.AnalyzeContext(ctx, in)
	if err != nil && ctx.Err() == nil && !errors.As(err, new(storeReadError)) {
		err = usageError{err}
	}
	return res, err
}

// loadOptions says how much loadInput reads besides the window and the
// lookback before it.
type loadOptions struct {
	trends bool // also the previous window, the month to date and the weekly history
	// outlines loads each GPU's first and last minute only, and its minutes
	// when the analysis reaches its resource (analysis.Input.LoadSeries),
	// dropped after it: a week of a 10,000-GPU fleet's minutes is 0.5 GB, its
	// four-week lookback 2 GB. The trends read no minutes, so each GPU's are
	// read once.
	outlines bool
	// holdLines is the most billing lines loadInput holds (analysis.Input.Lines);
	// a range with more has the analysis read them from the store as it goes
	// (analysis.Input.LineStream), in one walk for the window and its trends:
	// a week of a 10,000-GPU fleet's lines is hundreds of MB held whole. Zero
	// streams any lines (the review: a quarter's are always many); the
	// report's is reportHoldLines unless --hold-lines says otherwise.
	holdLines int
}

// loadInput reads what the analysis needs: the window and the lookback before
// it, and what opt adds.
func loadInput(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window, opt loadOptions) (*analysis.Input, error) {
	params, err := c.AnalysisParams()
	if err != nil {
		return nil, usageError{err}
	}
	lb := analysis.Window{Start: win.End.Add(-c.Lookback()), End: win.End}
	from := lb.Start
	starts := []time.Time{win.Start}
	if opt.trends {
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
	in := &analysis.Input{Window: win, Lookback: lb, Params: params, Resources: c.AnalysisResources(),
		Teams: c.AnalysisTeams(), Prices: c.AnalysisPrices(), SkipTrends: !opt.trends}
	// The GPUs are read while the lines are summarised: two scans of two
	// tables on two connections (the summary was 12 s of the 10,000-GPU
	// year's report, the GPUs 3 s, one after the other).
	gpusRead := make(chan error, 1)
	go func() {
		var err error
		if opt.outlines {
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
	if err := asUsage(analysis.CheckCurrencies(maps.Clone(sum.Currencies), params)); err != nil {
		return nil, err
	}
	if sum.Count > opt.holdLines {
		in.LineStream = lineStream(st, sum, from, win.End)
	} else if in.Lines, err = st.Lines(ctx, from, win.End); err != nil {
		return nil, err
	}
	if opt.outlines {
		in.LoadSeries = loadSeries(st, from, win.End)
		in.LoadSeriesRange = func(ctx context.Context, g *finops.GPUSeries, from, to time.Time) (finops.GPUSeries, error) {
			return loadSeries(st, from, to)(ctx, g)
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
	in.Sources = sourceStatuses(srcs, win, c.StaleAfter())
	in.SamplesDropped = droppedSamples(srcs, win)
	warns, err := st.Warnings(ctx, win.Start, win.End)
	if err != nil {
		return nil, err
	}
	in.IngestWarnings = ingestWarnings(warns)
	if in.Watch, err = watchActivity(ctx, st, win); err != nil {
		return nil, err
	}
	return in, nil
}

// inWindow reports whether an imported file's data overlaps the window.
func inWindow(s store.Source, win analysis.Window) bool {
	return !s.PeriodStart.IsZero() && s.PeriodStart.Before(win.End) && s.PeriodEnd.After(win.Start)
}

// sourceGroup is the data-quality box's name for a file's source: its
// format, and host when it has one.
func sourceGroup(s store.Source) string {
	if s.Host != "" {
		return s.Format + " " + s.Host
	}
	return s.Format
}

// droppedSamples sums, per source, the telemetry readings ingest dropped
// from the files overlapping the window.
func droppedSamples(srcs []store.Source, win analysis.Window) []analysis.DroppedSamples {
	by := map[string]int{}
	for _, s := range srcs {
		if s.SamplesDropped > 0 && inWindow(s, win) {
			by[sourceGroup(s)] += s.SamplesDropped
		}
	}
	var out []analysis.DroppedSamples
	for _, n := range slices.Sorted(maps.Keys(by)) {
		out = append(out, analysis.DroppedSamples{Source: n, Samples: by[n]})
	}
	return out
}

// ingestWarnings words the stored warnings of the window's files for the
// data-quality box, and how many more each file had than were kept (the same
// files: store.Warnings chose them).
func ingestWarnings(warns []store.Warning) []string {
	var out []string
	kept, total := map[string]int{}, map[string]int{}
	var uris []string
	for _, w := range warns {
		out = append(out, w.String())
		if kept[w.URI] == 0 {
			uris = append(uris, w.URI)
		}
		kept[w.URI]++
		total[w.URI] = w.FileTotal
	}
	for _, u := range uris {
		if more := total[u] - kept[u]; more > 0 {
			out = append(out, fmt.Sprintf("%s: %d more warnings like these", u, more))
		}
	}
	return out
}

// staleLookback is how long before a report's window a telemetry source that
// stopped is still named, stale, in its data-quality box.
const staleLookback = 35 * 24 * time.Hour

// sourceStatuses groups the imported files that overlap the window by kind,
// format and host for the data-quality box.
func sourceStatuses(srcs []store.Source, win analysis.Window, staleAfter time.Duration) []analysis.SourceStatus {
	type group struct {
		files  int
		latest time.Time
		kind   string
	}
	groups := map[string]*group{}
	for _, s := range srcs {
		// Telemetry that stopped before the window is named too, as stale:
		// a source that died last week must not vanish from this week's
		// box while its GPUs read as unmonitored.
		stoppedBefore := s.Kind == "utilization" && !s.PeriodEnd.IsZero() && !s.PeriodEnd.After(win.Start) &&
			s.PeriodEnd.After(win.Start.Add(-staleLookback))
		if !inWindow(s, win) && !stoppedBefore {
			continue
		}
		name := sourceGroup(s)
		g := groups[name]
		if g == nil {
			g = &group{kind: s.Kind}
			groups[name] = g
		}
		g.files++
		if s.PeriodEnd.After(g.latest) {
			g.latest = s.PeriodEnd
		}
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []analysis.SourceStatus
	for _, n := range names {
		g := groups[n]
		st := analysis.SourceStatus{Name: n, Kind: g.kind, Status: "ok",
			Detail: fmt.Sprintf("%d files, data until %s", g.files, g.latest.Format(time.RFC3339))}
		// Telemetry that stops long before the window ends is stale: its last
		// minutes would otherwise read as unmonitored without a word.
		if g.kind == "utilization" && g.latest.Before(win.End.Add(-staleAfter)) {
			st.Status = "stale"
		}
		out = append(out, st)
	}
	return out
}
