package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/objkey"
	"github.com/finops-oss/finops/internal/publish"
)

func (m *Main) restoreCommand() *cobra.Command {
	var from, period string
	var force bool
	cmd := &cobra.Command{
		Use:   "restore --period 2026-W47 [--from s3://bucket/prefix] [--force]",
		Short: "Bring back a database snapshot that `finops run` uploaded",
		Long: "restore downloads the gzipped database snapshot of a period from S3 (the config's publish.s3\n" +
			"bucket and prefix, or --from), checks its sha256, its integrity (PRAGMA integrity_check) and that it\n" +
			"is a database finops wrote (no application_id; a schema version this finops knows, never a newer\n" +
			"one; exactly the tables and indexes finops's migrations create, no trigger, no view) and puts it in\n" +
			"place of the database (--db, else the config's); an older schema is migrated first. A refused\n" +
			"snapshot replaces nothing. An existing database is replaced only with --force, and is kept beside\n" +
			"it as <db>.before-restore-<time>; --force never lets a refused snapshot in. The endpoint, region, path\n" +
			"style and credentials come from the config's publish.s3 block.",
		Example: "  finops restore --period 2026-W47\n  finops restore --from s3://finops-reports/weekly --period 2026-W47 --db restored.db",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if period == "" {
				return usagef("--period is required, e.g. --period 2026-W47")
			}
			c, _, err := m.loadConfig()
			if err != nil {
				return err
			}
			s3c := c.Publish.S3
			if from != "" {
				if s3c.Bucket, s3c.Prefix, err = objkey.ParseS3URL(from); err != nil {
					return usageError{err}
				}
			}
			if s3c.Bucket == "" {
				return usagef("no bucket: give --from s3://bucket/prefix or set publish.s3.bucket in the config")
			}
			sc, secrets, err := deliver.S3Settings(ctx, s3c, m.Getenv)
			if err != nil {
				return usageError{err}
			}
			client, err := publish.NewS3(ctx, sc)
			if err != nil {
				return redactErr(err, secrets...)
			}
			return redactErr(m.restore(ctx, client, period, m.databasePath(c), force), secrets...)
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "where the snapshots are, s3://bucket/prefix (default: the config's publish.s3)")
	f.StringVar(&period, "period", "", "the period whose snapshot to restore, e.g. 2026-W47")
	f.BoolVar(&force, "force", false, "replace an existing database (kept as <db>.before-restore-<time>); the snapshot is checked all the same")
	return cmd
}

// restore refuses to replace a database without --force or to ask for a
// period the snapshots' names cannot hold, then restores (deliver.Restore).
func (m *Main) restore(ctx context.Context, client *publish.S3, period, db string, force bool) error {
	if _, err := os.Stat(db); err == nil && !force {
		return usagef("%s exists: pass --force to replace it (it is kept as %s.before-restore-<time>)", db, db)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore: %w", err)
	}
	if _, err := client.Key(period, objkey.SnapshotName(period)); err != nil {
		return usageError{err}
	}
	r, err := deliver.Restore(ctx, client, period, db, m.Now())
	if err != nil {
		return err // store.ErrLocked: exit 5
	}
	counts := r.Counts
	fmt.Fprintf(m.Stdout, "restored %s from %s (sha256 %s)\n", db, r.URL, r.SHA256)
	fmt.Fprintf(m.Stdout, "  %d source files, %d billing lines, %d GPU-days and %d GPU-minutes of telemetry, %d task runs\n",
		counts["source_files"], counts["billing_lines"], counts["gpu_days"], counts["gpu_minutes"], counts["task_runs"])
	if r.Kept != "" {
		fmt.Fprintf(m.Stdout, "the previous database is kept as %s\n", r.Kept)
	}
	return nil
}
