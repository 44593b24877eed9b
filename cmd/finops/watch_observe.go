package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/ingest"
	"github.com/finops-oss/finops/ingest/prom"
	"github.com/finops-oss/finops/store"
)

// minBillingWindow is how far back a pass looks for a resource's billing
// lines: exports arrive a day or more late, so a resource running now is
// known by its lines of the last days. max_lifetime longer than this
// widens it.
const minBillingWindow = 7 * 24 * time.Hour

// observe reads what is new from the telemetry sources into the store, then
// loads the lookback's telemetry and the resources' latest billing lines
// and computes each resource's state at now.
func (m *Main) observe(ctx context.Context, st *store.Store, c *config.Config, now time.Time) (*observation, error) {
	set := c.Watch.Settings()
	obs := &observation{from: now.Add(-set.Lookback), telemetryOK: true}
	var failed []string
	for _, p := range c.Telemetry.Prometheus {
		if err := m.watchPrometheus(ctx, st, c, p, obs.from, now); err != nil {
			failed = append(failed, redact(err.Error()))
		}
	}
	if specs, err := configSources(c); err != nil {
		return nil, err
	} else {
		logs, whole := splitTails(telemetryOnly(specs))
		reads, bad, err := m.watchTails(ctx, st, c, logs, obs.from, now)
		if err != nil {
			return nil, err
		}
		obs.tails, failed = reads, append(failed, bad...)
		if len(whole) > 0 {
			// dcgm-exporter scrapes are snapshots, not logs: an unchanged one
			// is skipped by its digest.
			results, _ := m.ingestSources(ctx, st, c, whole, io.Discard)
			for _, r := range results {
				if r.err != nil {
					failed = append(failed, fmt.Sprintf("%s: %s", r.spec.name, redact(r.err.Error())))
				}
			}
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(failed) > 0 {
		obs.telemetryOK, obs.telemetryErr = false, "telemetry: "+strings.Join(failed, "; ")
	}
	// Up to a day past now: samples a fast clock stamped in the future are
	// loaded so that analysis.Now can warn about them.
	series, err := st.GPUSeries(ctx, obs.from, now.Add(24*time.Hour))
	if err != nil {
		return nil, err
	}
	window := minBillingWindow
	for _, d := range c.Watch.MaxLifetime {
		window = max(window, d.Duration+24*time.Hour)
	}
	for _, r := range c.Resources {
		window = max(window, r.MaxLifetime.Duration+24*time.Hour)
	}
	var keep analysis.LineKeeper
	if err := st.EachLine(ctx, now.Add(-window), now.Add(24*time.Hour), func(l *finops.BillingLine) error {
		keep.Add(l)
		return nil
	}); err != nil {
		return nil, err
	}
	params, err := c.AnalysisParams()
	if err != nil {
		return nil, usageError{err}
	}
	in := &analysis.Input{Lines: keep.Lines(), GPUs: series, Resources: c.AnalysisResources(), Teams: c.AnalysisTeams(),
		Prices: c.AnalysisPrices(), Params: params}
	obs.resources, obs.warnings, err = analysis.Now(in, obs.from, now)
	if err != nil {
		return nil, usageError{err}
	}
	return obs, nil
}

// splitTails parts the telemetry files into logs read by their tail
// (nvidia-smi logs, NVML spools) and files read whole (dcgm scrapes).
func splitTails(specs []sourceSpec) (logs, whole []sourceSpec) {
	for _, s := range specs {
		if s.format == ingest.FormatNvidiaSMI {
			logs = append(logs, s)
		} else {
			whole = append(whole, s)
		}
	}
	return logs, whole
}

// telemetryOnly keeps the file sources of GPU telemetry.
func telemetryOnly(specs []sourceSpec) []sourceSpec {
	var out []sourceSpec
	for _, s := range specs {
		if s.kind == ingest.KindUtilization {
			out = append(out, s)
		}
	}
	return out
}

// watchPrometheus fetches what the server has since the last pass (at most
// the lookback), stores it, and moves the source's cursor to where it read.
// The last few steps are read again each pass: a scrape lands in
// Prometheus up to a scrape interval late.
func (m *Main) watchPrometheus(ctx context.Context, st *store.Store, c *config.Config, p config.Prometheus, from, now time.Time) error {
	src, err := c.PromSource(p, m.Getenv)
	if err != nil {
		return fmt.Errorf("%s: %w", promName(p), err)
	}
	client, err := prom.New(src)
	if err != nil {
		return fmt.Errorf("%s: %w", promName(p), err)
	}
	cursorKey := "prometheus://" + client.Source().Name
	cursor, err := st.WatchCursor(ctx, cursorKey)
	if err != nil {
		return err
	}
	const reread = 5 * time.Minute
	if start := cursor.Add(-reread); start.After(from) && !cursor.After(now) {
		from = start
	}
	d, err := client.FetchRange(ctx, from, now)
	if err != nil {
		return fmt.Errorf("%s: %w", promName(p), err)
	}
	if d.Samples > 0 {
		if _, err := st.Import(ctx, store.FileMeta{URI: d.URI, SHA256: d.SHA256}, d.Replay); err != nil {
			return fmt.Errorf("%s: %w", promName(p), err)
		}
	}
	return st.SetWatchCursor(ctx, cursorKey, now)
}
