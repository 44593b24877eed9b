package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/ingest"
	"github.com/finops-oss/finops/store"
	"github.com/spf13/cobra"
)

func (m *Main) ingestCommand() *cobra.Command {
	var format, host, tz string
	var check bool
	var maxBad int
	cmd := &cobra.Command{
		Use:   "ingest [flags] PATH...",
		Short: "Import billing exports, GPU telemetry or task files into the database",
		Long: "Import files, folders or globs (.gz too). The format is detected from each file's header.\n" +
			"Importing the same file twice changes nothing. A bad file changes nothing and names file:line.",
		Example: "  finops ingest exports/focus-2026-11.csv\n  finops ingest --host gpu-a --tz Asia/Shanghai logs/gpu-a/*.csv\n  finops ingest --check bill.csv",
		Args:    usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, loc, err := m.loadConfig()
			if err != nil {
				return err
			}
			if tz != "" {
				if loc, err = time.LoadLocation(tz); err != nil {
					return usagef("--tz %q: %v", tz, err)
				}
			}
			mappings, err := c.ColumnMappings()
			if err != nil {
				return usageError{err}
			}
			if cmd.Flags().Changed("max-bad-rows") {
				c.MaxBadRows = maxBad
			}
			var specs []sourceSpec
			for _, a := range args {
				specs = append(specs, sourceSpec{name: a, format: format, host: host, location: loc, mappings: mappings})
			}
			if check {
				return m.checkFiles(cmd.Context(), c, specs)
			}
			st, err := m.openStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			_, err = m.ingestSources(cmd.Context(), st, c, specs, m.Stdout)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "force a format: focus, rental, nvidia-smi, tasks")
	f.StringVar(&host, "host", "", "GPU host of telemetry files that do not name it (nvidia-smi logs)")
	f.StringVar(&tz, "tz", "", "time zone of local timestamps (default: the config's)")
	f.BoolVar(&check, "check", false, "parse and validate only; write nothing")
	f.IntVar(&maxBad, "max-bad-rows", 0, "bad rows a file may have before it is refused (they are counted and reported)")
	return cmd
}

// sourceResult is what ingesting one source did, for the data-quality box.
type sourceResult struct {
	spec   sourceSpec
	files  int
	failed int
	err    error
}

// ingestSources imports every file of every source, one transaction per
// file. A failing file does not stop the others; the first error is returned
// after all were tried, so one bad export never hides the rest of the week.
//
// perFile receives one line per file; the scheduled job passes io.Discard.
func (m *Main) ingestSources(ctx context.Context, st *store.Store, c *config.Config, specs []sourceSpec, perFile io.Writer) ([]sourceResult, error) {
	type job struct {
		spec *sourceResult
		path string
	}
	results := make([]sourceResult, len(specs))
	var jobs []job
	var errs []error
	for i, s := range specs {
		results[i].spec = s
		files, err := expand(s.name)
		if err != nil {
			results[i].err = err
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			jobs = append(jobs, job{&results[i], f})
		}
	}
	progress := interactive(m.Stderr)
	for n, j := range jobs {
		if progress {
			fmt.Fprintf(m.Stderr, "\r\033[K[%d/%d] %s", n+1, len(jobs), j.path)
		}
		res, err := m.ingestFile(ctx, st, c, j.spec.spec, j.path)
		j.spec.files++
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return results, err
			}
			j.spec.failed++
			if j.spec.err == nil {
				j.spec.err = err
			}
			errs = append(errs, err)
			if progress {
				fmt.Fprint(m.Stderr, "\r\033[K")
			}
			fmt.Fprintf(perFile, "%s: FAILED: %v\n", j.path, err)
			continue
		}
		if progress {
			fmt.Fprint(m.Stderr, "\r\033[K")
		}
		if res.Duplicate {
			fmt.Fprintf(perFile, "%s: already imported (same bytes as %s): nothing changed\n", j.path, res.DuplicateOf)
			continue
		}
		fmt.Fprintf(perFile, "%s: %s\n", j.path, describe(res.Summary))
	}
	if len(errs) > 0 {
		return results, fmt.Errorf("ingest: %d of %d sources or files failed; the first: %w", len(errs), len(jobs), errs[0])
	}
	return results, nil
}

func parseOptions(c *config.Config, s sourceSpec, path string) ingest.Options {
	return ingest.Options{Name: path, Format: s.format, Host: s.host, Location: s.location,
		Mappings: s.mappings, Catalog: c.Catalog(), MaxBadRows: c.MaxBadRows}
}

func (m *Main) ingestFile(ctx context.Context, st *store.Store, c *config.Config, s sourceSpec, path string) (*store.ImportResult, error) {
	sum, err := store.FileSHA256(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st.Import(ctx, store.FileMeta{URI: path, SHA256: sum, Host: s.host},
		func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
			rc, err := ingest.Open(path)
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			sm, err := ingest.Parse(ctx, rc, parseOptions(c, s, path), sink)
			if err == nil && s.kind != "" && sm.Kind != s.kind {
				return nil, fmt.Errorf("%s: configured as %s but the file is %s (%s)", path, s.kind, sm.Kind, sm.Format)
			}
			return sm, err
		})
}

// checkFiles parses without writing and prints what a real import would do.
func (m *Main) checkFiles(ctx context.Context, c *config.Config, specs []sourceSpec) error {
	var errs []error
	for _, s := range specs {
		files, err := expand(s.name)
		if err != nil {
			errs = append(errs, err)
			fmt.Fprintf(m.Stdout, "%v\n", err)
			continue
		}
		for _, f := range files {
			sum, err := checkFile(ctx, c, s, f)
			if err != nil {
				errs = append(errs, err)
				fmt.Fprintf(m.Stdout, "%s: INVALID: %v\n", f, err)
				continue
			}
			fmt.Fprintf(m.Stdout, "%s: OK: %s\n", f, describe(sum))
			for _, r := range sum.Rejected {
				fmt.Fprintf(m.Stdout, "  rejected: %v\n", r)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("ingest --check: %d problems; the first: %w", len(errs), errs[0])
	}
	return nil
}

func checkFile(ctx context.Context, c *config.Config, s sourceSpec, path string) (*ingest.Summary, error) {
	rc, err := ingest.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ingest.Parse(ctx, rc, parseOptions(c, s, path), discard{})
}

// discard is the sink of --check.
type discard struct{}

func (discard) Billing(*ingest.BillingLine) error { return nil }
func (discard) Sample(*ingest.GPUSample) error    { return nil }
func (discard) TaskRun(*ingest.TaskRun) error     { return nil }

// describe is the one-line account of a parsed file.
func describe(s *ingest.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d rows", s.Format, s.Rows)
	if !s.PeriodStart.IsZero() {
		fmt.Fprintf(&b, ", %s .. %s", s.PeriodStart.Format(time.RFC3339), s.PeriodEnd.Format(time.RFC3339))
	}
	if s.Kind == ingest.KindBilling {
		fmt.Fprintf(&b, ", total %s %s, %d GPU lines", s.TotalCost.StringFixed(2), strings.Join(s.Currencies, "+"), s.GPULines)
	}
	if s.SampleInterval > 0 {
		fmt.Fprintf(&b, ", every %s", s.SampleInterval.Round(time.Second))
	}
	if len(s.Rejected) > 0 {
		fmt.Fprintf(&b, ", %d rows rejected", len(s.Rejected))
	}
	return b.String()
}
