package pass

import (
	"context"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/analysisconf"
	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/telemetry"
)

// minBillingWindow is how far back a pass looks for a resource's billing
// lines: exports arrive a day or more late, so a resource running now is
// known by its lines of the last days. max_lifetime longer than this
// widens it.
const minBillingWindow = 7 * 24 * time.Hour

// observation is what a pass knows about now.
type observation struct {
	from         time.Time
	resources    []analysis.ResourceNow
	warnings     []string
	tails        []tailRead // the log files read, with their new cursors
	telemetryOK  bool
	telemetryErr string
}

// observe reads what is new from the telemetry sources into the store, then
// loads the lookback's telemetry and the resources' latest billing lines
// and computes each resource's state at now.
func observe(ctx context.Context, o Options, now time.Time) (*observation, error) {
	c, st := o.Config, o.Store
	set := c.Watch.Settings()
	obs := &observation{from: now.Add(-set.Lookback), telemetryOK: true}
	var failed []string
	for _, p := range c.Telemetry.Prometheus {
		if err := telemetry.FetchSince(ctx, st, c, p, o.Getenv, obs.from, now); err != nil {
			failed = append(failed, deliver.Redact(err.Error()))
		}
	}
	reads, bad, err := readTails(ctx, o, obs.from, now)
	if err != nil {
		return nil, err
	}
	obs.tails, failed = reads, append(failed, bad...)
	if o.Whole != nil {
		failed = append(failed, o.Whole(ctx)...)
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
	params, err := analysisconf.Params(c)
	if err != nil {
		return nil, ConfigError{err}
	}
	in := &analysis.Input{Lines: keep.Lines(), GPUs: series, Resources: analysisconf.Resources(c), Teams: analysisconf.Teams(c),
		Prices: analysisconf.Prices(c), Params: params}
	obs.resources, obs.warnings, err = analysis.Now(in, obs.from, now)
	if err != nil {
		return nil, ConfigError{err}
	}
	return obs, nil
}
