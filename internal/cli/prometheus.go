package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/telemetry"
)

// ingestPrometheusCommand is `finops ingest prometheus`: query_range per UTC
// day from the configured servers (or --url), one transaction per day.
func (m *Main) ingestPrometheusCommand() *cobra.Command {
	var wf config.Period
	var fl config.Prometheus
	var step, timeout, backoff string
	var retries, concurrent int
	var task, team, kind string
	cmd := &cobra.Command{
		Use:   "prometheus [--url URL] [--since 35d | --from DATE --to DATE]",
		Short: "Import GPU utilization from Prometheus (dcgm-exporter, nvidia_gpu_exporter or your PromQL)",
		Long: "Query each day of the period from the Prometheus servers under utilization.prometheus in the\n" +
			"config, or from --url. Days already stored are not fetched again; a day the server does not\n" +
			"answer is missing (never zero), and one answered with warnings is partial and fetched again next time.\n\n" +
			"With --url, a server the config lists under that URL keeps its settings (name, queries, step,\n" +
			"timeout, retries, max_response_bytes, concurrent_days, credentials, labels); the flags given\n" +
			"replace them. A URL the config does not list gets the defaults, but the smallest\n" +
			"max_response_bytes and concurrent_days of the configured servers (the memory this machine\n" +
			"is allowed), unless --max-response-bytes or --concurrent-days say otherwise.",
		Example: "  finops ingest prometheus --url http://prometheus:9090 --since 7d\n" +
			"  finops ingest prometheus --url http://prom:9090 --exporter nvidia_gpu_exporter --from 2026-11-01 --to 2026-11-30\n" +
			"  finops ingest prometheus    # every configured server, the lookback and the last week",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, loc, err := m.loadConfig()
			if err != nil {
				return err
			}
			if wf == (config.Period{}) {
				wf.Since = fmt.Sprintf("%dh", int((c.Lookback()+7*24*time.Hour)/time.Hour))
			}
			win, err := fetchWindow(wf, m.Now(), loc)
			if err != nil {
				return err
			}
			srcs := c.Telemetry.Prometheus
			if fl.URL != "" {
				fc, err := telemetry.URLServer(c.Telemetry.Prometheus, telemetry.Overrides{Server: fl, Step: step, Timeout: timeout,
					RetryBackoff: backoff, Retries: retries, ConcurrentDays: concurrent, TaskLabel: task, TeamLabel: team, KindLabel: kind,
					Set: cmd.Flags().Changed})
				if err != nil {
					return usageError{err}
				}
				one := config.Config{Telemetry: config.Telemetry{Prometheus: []config.Prometheus{fc}}}
				if err := one.Validate(telemetry.CheckConfig); err != nil {
					return usageError{err}
				}
				srcs = []config.Prometheus{fc}
			}
			if len(srcs) == 0 {
				return usagef("no Prometheus server: give --url or add utilization.prometheus to the config")
			}
			st, err := m.openStore(ctx, c)
			if err != nil {
				return err
			}
			defer st.Close()
			perDay := m.Stdout
			if m.quiet {
				perDay = io.Discard // the returned error names every failure on stderr
			}
			results := m.ingestPrometheus(ctx, st, c, srcs, win.Start, win.End, perDay)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return errors.Join(telemetry.Failure(results), m.compactTelemetry(ctx, st, c))
		},
	}
	f := cmd.Flags()
	f.StringVar(&wf.Since, "since", "", "import the last duration, e.g. 7d (default: the lookback and a week)")
	f.StringVar(&wf.From, "from", "", "first day (with --to)")
	f.StringVar(&wf.To, "to", "", "last day, inclusive")
	f.StringVar(&fl.URL, "url", "", "Prometheus base URL, e.g. http://prometheus:9090 (default: the config's servers)")
	f.StringVar(&fl.Name, "name", "", "short name of the server in the database and reports (default: its host)")
	f.StringVar(&fl.Exporter, "exporter", "", "default queries: dcgm (dcgm-exporter) or nvidia_gpu_exporter")
	f.StringVar(&fl.Query, "query", "", "utilization PromQL (percent 0-100 per GPU) instead of the exporter's")
	f.StringVar(&step, "step", "", "query resolution (default 60s)")
	f.StringVar(&timeout, "timeout", "", "per-request timeout (default 2m)")
	f.StringVar(&backoff, "retry-backoff", "", "wait before the first retry, doubled each time (default 2s)")
	f.IntVar(&retries, "retries", 3, "retries of a request that failed with 5xx, a timeout or a network error")
	f.Int64Var(&fl.MaxResponseBytes, "max-response-bytes", 0, "cap on one answer; a larger one is fetched in parts (default: the config's, else 256 MiB)")
	f.IntVar(&concurrent, "concurrent-days", 0, "days asked for at once, and held in memory (default: the config's, else 4)")
	f.StringVar(&fl.BearerTokenEnv, "bearer-token-env", "", "environment variable holding a bearer token")
	f.StringVar(&fl.BasicAuthUser, "basic-auth-user", "", "basic-auth user")
	f.StringVar(&fl.BasicAuthPasswordEnv, "basic-auth-password-env", "", "environment variable holding the basic-auth password")
	f.StringVar(&task, "task-label", "", "labels naming the task holding a GPU, e.g. pod,exported_pod (default: none)")
	f.StringVar(&team, "team-label", "", "labels naming its team, e.g. namespace,exported_namespace")
	f.StringVar(&kind, "kind-label", "", "labels naming its kind, e.g. container")
	return cmd
}

// ingestPrometheus fetches and stores every UTC day overlapping [from, to)
// from each server (telemetry.Fetch), with a progress bar of its days.
// perDay gets one line per day (io.Discard when quiet).
func (m *Main) ingestPrometheus(ctx context.Context, st *store.Store, c *config.Config, srcs []config.Prometheus,
	from, to time.Time, perDay io.Writer) []telemetry.Result {
	bars := m.bars()
	return telemetry.Fetch(ctx, st, telemetry.Options{Config: c, Servers: srcs, Getenv: m.Getenv, Now: m.Now, PerDay: perDay,
		Progress:      func(server string, days int) telemetry.Progress { return bars.Steps(server, days, "days") },
		CompactBefore: m.compactBefore(c)}, from, to)
}

// ingestPrometheusQuietly is the scheduled job's Prometheus step: one line
// per failed or partial server, a day per line only with -v.
func (m *Main) ingestPrometheusQuietly(ctx context.Context, st *store.Store, c *config.Config, from, to time.Time) []reportjob.Source {
	if len(c.Telemetry.Prometheus) == 0 {
		return nil
	}
	perDay := io.Discard
	if m.verbose {
		perDay = m.Stdout
	}
	var results []reportjob.Source
	for _, r := range m.ingestPrometheus(ctx, st, c, c.Telemetry.Prometheus, from, to, perDay) {
		if r.Err != nil {
			fmt.Fprintf(m.Stdout, "source %s: %v\n", r.Server, r.Err)
		} else if !m.quiet {
			fmt.Fprintf(m.Stdout, "source %s: %s\n", r.Server, r.Detail)
		}
		results = append(results, reportjob.Source{Name: r.Server, Kind: ingest.KindUtilization,
			Files: r.Days, Failed: r.Failed, Err: r.Err, Partial: r.Partial, Detail: r.Detail})
	}
	return results
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
