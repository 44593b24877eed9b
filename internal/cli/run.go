package cli

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/runjob"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
)

func (m *Main) runCommand() *cobra.Command {
	var week, out string
	var pf publishFlags
	cmd := &cobra.Command{
		Use:   "run [--week last | --week 2026-W47] [--no-upload] [--no-email] [--dry-run] [--resend]",
		Short: "The scheduled job: ingest the configured sources, report, upload and email",
		Long: "run ingests every configured source (files already imported are skipped), writes the reports\n" +
			"for the week, uploads them and a database snapshot to S3 and emails each team's leads their\n" +
			"slice and the admins the whole report. The run ledger in the database remembers what went out:\n" +
			"running the same week again sends nothing twice (unless --resend), and what failed is retried\n" +
			"by the next run. Only one run at a time per database.\n\n" +
			"Exit 3: the report was written but a source was missing. Exit 4: the report was written but an\n" +
			"upload or email failed (retried next run). Exit 5: another run holds the lock.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			ctx := cmd.Context()
			c, loc, err := m.loadConfig()
			if err != nil {
				return err
			}
			win, err := ReportWindow(config.Period{Week: week}, m.Now(), loc)
			if err != nil {
				return err
			}
			specs, err := source.FromConfig(c)
			if err != nil {
				return err
			}
			if len(specs) == 0 && len(c.Telemetry.Prometheus) == 0 {
				return usagef("no sources configured: add billing, utilization or tasks paths to the config (see finops.example.yaml)")
			}
			st, err := m.openStore(ctx, c)
			if err != nil {
				return err
			}
			defer st.Close()
			job, err := m.startJob(ctx, st, c, win, pf)
			if err != nil {
				return err
			}
			defer func() { err = job.finish(err) }()
			if err := reportjob.SyncTeams(ctx, st, c); err != nil {
				return err
			}
			results, _ := m.ingestQuietly(ctx, st, c, specs)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// Prometheus: every day of the lookback and the week not stored yet.
			results = append(results, m.ingestPrometheusQuietly(ctx, st, c, minTime(win.Start, win.End.Add(-c.Lookback())), win.End)...)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := m.compactTelemetry(ctx, st, c); err != nil {
				fmt.Fprintf(m.Stdout, "%v\n", err)
			}
			job.Ingested(!slices.ContainsFunc(results, func(r reportjob.Source) bool { return r.Err != nil }))
			formats, err := reportFormats(c, "")
			if err != nil {
				return err
			}
			res, repErr := m.writeReports(ctx, st, c, win, results, outDir(c, out), formats)
			return job.Publish(ctx, res, repErr, outDir(c, out), formats)
		},
	}
	f := cmd.Flags()
	f.StringVar(&week, "week", "last", "ISO week to report, e.g. 2026-W47, or last")
	f.StringVar(&out, "out", "", "output folder (default from config, else ./out)")
	f.BoolVar(&pf.NoUpload, "no-upload", false, "do not upload to S3")
	f.BoolVar(&pf.NoEmail, "no-email", false, "do not send email")
	f.BoolVar(&pf.DryRun, "dry-run", false, "ingest and report as usual, then show what would be uploaded and sent instead of doing it")
	f.BoolVar(&pf.Resend, "resend", false, "email this week's report again to recipients who already have it")
	f.StringVar(&pf.textfile, "textfile", "", "write the run's result for node-exporter's textfile collector to this file\n(default publish.metrics_textfile)")
	return cmd
}

// ingestQuietly ingests sources printing one line per failed file and a
// total, not a line per file: the scheduled job's output goes to cron mail.
func (m *Main) ingestQuietly(ctx context.Context, st *store.Store, c *config.Config, specs []source.Spec) ([]reportjob.Source, error) {
	perFile := io.Discard
	if m.verbose {
		perFile = m.Stdout
	}
	results, err := m.ingestSources(ctx, st, c, specs, perFile)
	files, failed := 0, 0
	for _, r := range results {
		files += r.Files
		failed += r.Failed
		if r.Err != nil {
			fmt.Fprintf(m.Stdout, "source %s: %v\n", r.Name, r.Err)
		}
	}
	if !m.quiet {
		fmt.Fprintf(m.Stdout, "ingested %d files from %d sources (%d failed)\n", files-failed, len(specs), failed)
	}
	return results, err
}

// publishFlags are the run command's publishing flags.
type publishFlags struct {
	deliver.Options
	textfile string
}

// job is a run (runjob.Job) and the stdout it gives back when done: in JSON
// mode m.Stdout is io.Discard meanwhile, as stdout carries only the result.
type job struct {
	*runjob.Job
	m      *Main
	stdout io.Writer
}

// startJob takes the run lock and records the run's start (runjob.Start).
func (m *Main) startJob(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window, flags publishFlags) (*job, error) {
	j, err := runjob.Start(ctx, runjob.Options{Store: st, Config: c, Window: win, Delivery: flags.Options, Textfile: flags.textfile,
		Lock: m.AcquireRunLock, Outcome: runOutcome, JSON: m.jsonResults(), Stdout: m.Stdout, Quiet: m.quiet,
		Version: m.Version, Getenv: m.Getenv, Now: m.Now, Log: m.logger, Bytes: m.bars().deliveryBytes, Backoff: m.SendBackoff})
	if err != nil {
		return nil, err
	}
	out := &job{Job: j, m: m, stdout: m.Stdout}
	m.Stdout = j.Lines
	return out, nil
}

// finish ends the run (runjob.Job.Finish) with err, its secrets removed,
// and returns that.
func (j *job) finish(err error) error {
	j.m.Stdout = j.stdout
	return j.Finish(redactErr(err, j.Secrets()...))
}

// runOutcome is err's exit code and the run ledger's status for it.
func runOutcome(err error) (int, string) {
	code := exitCode(err)
	return code, map[int]string{ExitOK: store.RunOK, ExitPartial: store.RunPartial, ExitPublish: store.RunPublishFailed}[code]
}
