package main

import (
	"context"
	"fmt"
	"io"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/store"
	"github.com/spf13/cobra"
)

func (m *Main) runCommand() *cobra.Command {
	var week, out string
	var noUpload, noEmail, dryRun bool
	cmd := &cobra.Command{
		Use:   "run [--week last | --week 2026-W47]",
		Short: "The scheduled job: ingest the configured sources, then report",
		Long: "run ingests every configured source (files already imported are skipped), writes the reports\n" +
			"for the week and prints a summary. Exit 3 means the report was written but a source was missing.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, loc, err := m.loadConfig()
			if err != nil {
				return err
			}
			win, err := windowFlags{week: week}.resolve(m.Now(), loc)
			if err != nil {
				return err
			}
			specs, err := configSources(c)
			if err != nil {
				return err
			}
			if len(specs) == 0 {
				return usagef("no sources configured: add billing, utilization or tasks paths to the config (see finops.example.yaml)")
			}
			st, err := m.openStore(ctx, c)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := syncTeams(ctx, st, c); err != nil {
				return err
			}
			results, _ := m.ingestQuietly(ctx, st, c, specs)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			formats, err := reportFormats(c, "")
			if err != nil {
				return err
			}
			_, repErr := m.writeReports(ctx, st, c, win, results, outDir(c, out), formats)
			// Publishing (S3 backup, team-lead email) is not built yet: say so
			// rather than pretend the reports went out.
			if !noUpload || !noEmail || dryRun {
				fmt.Fprintln(m.Stdout, "upload and email: not available in this version; reports stay in the out folder")
			}
			return repErr
		},
	}
	f := cmd.Flags()
	f.StringVar(&week, "week", "last", "ISO week to report, e.g. 2026-W47, or last")
	f.StringVar(&out, "out", "", "output folder (default from config, else ./out)")
	f.BoolVar(&noUpload, "no-upload", false, "do not upload to S3")
	f.BoolVar(&noEmail, "no-email", false, "do not send email")
	f.BoolVar(&dryRun, "dry-run", false, "show what would be uploaded and sent")
	return cmd
}

// ingestQuietly ingests sources printing one line per failed file and a
// total, not a line per file: the scheduled job's output goes to cron mail.
func (m *Main) ingestQuietly(ctx context.Context, st *store.Store, c *config.Config, specs []sourceSpec) ([]sourceResult, error) {
	perFile := io.Discard
	if m.verbose {
		perFile = m.Stdout
	}
	results, err := m.ingestSources(ctx, st, c, specs, perFile)
	files, failed := 0, 0
	for _, r := range results {
		files += r.files
		failed += r.failed
		if r.err != nil {
			fmt.Fprintf(m.Stdout, "source %s: %v\n", r.spec.name, r.err)
		}
	}
	fmt.Fprintf(m.Stdout, "ingested %d files from %d sources (%d failed)\n", files-failed, len(specs), failed)
	return results, err
}

// syncTeams records the configured teams in the database.
func syncTeams(ctx context.Context, st *store.Store, c *config.Config) error {
	var teams []store.Team
	for _, t := range c.Teams {
		teams = append(teams, store.Team{Name: t.Name, Tag: t.Tag, MonthlyBudget: t.MonthlyBudget, Leads: t.Leads})
	}
	return st.SyncTeams(ctx, teams)
}
