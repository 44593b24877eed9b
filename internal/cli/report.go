package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gctune"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/store"
)

func (m *Main) reportCommand() *cobra.Command {
	var wf config.Period
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
			win, err := ReportWindow(wf, m.Now(), loc)
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
	f.StringVar(&wf.Since, "since", "", "report the last N complete days, e.g. 30d, 2w (ending at today's 00:00 in the config's timezone)")
	f.StringVar(&wf.Week, "week", "", "report one ISO week, e.g. 2026-W47 (default: the last complete week)")
	f.StringVar(&wf.From, "from", "", "first day of the report (with --to)")
	f.StringVar(&wf.To, "to", "", "last day of the report, inclusive")
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

// reportFormats is the formats a report writes (report.ChooseFormats).
func reportFormats(c *config.Config, flag string) ([]string, error) {
	fs, err := report.ChooseFormats(flag, c.Formats)
	if err != nil {
		return nil, usageError{err}
	}
	return fs, nil
}

// writeReports loads the window and its lookback from the store, analyses it
// and writes the reports. ingested, when not nil, says how this run's sources
// fared; a missing source makes the result partial (exit 3).
func (m *Main) writeReports(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window,
	ingested []reportjob.Source, dir string, formats []string) (*analysis.Result, error) {
	res, _, err := m.writeTeamReports(ctx, st, c, win, ingested, dir, formats, "")
	return res, err
}

// reportGCPercent is the collector's GOGC while the reports are written,
// unless GOGC is set. What is live then is the result and the few deflate
// chunks in flight (the streamed sheets' rows go to workbook.Rows, deflated
// into a temporary file as they come); what is allocated is short-lived
// cell text. 70 took peak RSS from 240 to 211 MB when excelize's stream
// buffers were live; on the 1,000-GPU week of docs/BENCHMARKS.md §Weekly
// report speed it is 125–137 MB against 141–145 MB at 100 and 170 MB at
// 150, for no CPU difference the machine's load let show (2026-12-07).
const reportGCPercent = 70

// writeTeamReports is writeReports for one team's slice (team != ""): only
// that team's rows, files named finops-<period>-<team>.*. It returns the
// result the reports show and the files written. In JSON mode it prints
// neither the summary nor the files: the caller's result names them.
func (m *Main) writeTeamReports(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window,
	ingested []reportjob.Source, dir string, formats []string, team string) (*analysis.Result, []string, error) {
	in, missing, err := reportjob.Report(ctx, st, c, win, m.holdLines, ingested)
	if err != nil {
		return nil, nil, err
	}
	in.Now = m.Now() // the running week's contracts are billed past it (not a stale source), and the watch's savings run to now at most

	res, err := reportjob.Analyze(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	if res.DataQuality.Clipped != "" {
		fmt.Fprintf(m.Stderr, "note: %s\n", res.DataQuality.Clipped)
	}
	sheets := m.bars().Sheets("workbook " + win.Label)
	defer sheets.Done()
	dbID, err := st.DatabaseID(ctx)
	if err != nil {
		return nil, nil, err
	}
	meta := report.Meta{GeneratedAt: m.Now(), Version: m.Version, FX: in.Params.FX, Sheet: sheets.Sheet, DatabaseID: dbID}
	var keep func(*finops.BillingLine) bool // nil: every line
	if team != "" {
		if res, keep, err = reportjob.ForTeam(res, c, team); err != nil {
			return nil, nil, err
		}
		meta.Team = res.ByTeam[0].Team
		missing = reportjob.TeamMissing(missing, res)
	}
	// The workbook's raw Billing lines sheet streams straight from the store,
	// even where the analysis held the lines: read again, they are not kept
	// alive through the workbook (on the 1,000-GPU week, 280 MB peak instead
	// of 368 MB, for 0.8 s more CPU).
	meta.Lines = st.LineStream(ctx, win.Start, win.End, keep)
	defer gctune.Set(m.Getenv, reportGCPercent)()
	paths, err := report.WriteAllContext(ctx, dir, res, formats, meta)
	if err != nil {
		return res, nil, err
	}
	if m.jsonResults() || m.quiet {
		return res, paths, reportjob.Incomplete(missing, res)
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
	return res, paths, reportjob.Incomplete(missing, res)
}
