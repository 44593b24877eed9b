package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/store"
)

// compactTelemetry folds the telemetry minutes of days that ended more than
// utilization.hot_days ago into one row per GPU-day (store.CompactTelemetry).
// It runs once after a command's imports, not after each file, so the files
// of one ingest still merge minute by minute (overlapping logs, a sample
// split across two files). What the reports read is unchanged by it.
func (m *Main) compactTelemetry(ctx context.Context, st *store.Store, c *config.Config) error {
	before := m.compactBefore(c)
	res, err := st.CompactTelemetry(ctx, before)
	if err != nil {
		return fmt.Errorf("compact telemetry before %s: %w (the imports are kept; the next ingest tries again)",
			before.Format("2006-01-02"), err)
	}
	if res.Days > 0 && m.logger != nil {
		m.logger.Debug("compacted telemetry", "before", before.Format("2006-01-02"), "gpu_days", res.Days, "minutes", res.Minutes)
	}
	return nil
}

// compactBefore is store.CompactBefore now, with utilization.hot_days.
func (m *Main) compactBefore(c *config.Config) time.Time {
	return store.CompactBefore(m.Now(), c.Telemetry.HotDays)
}
