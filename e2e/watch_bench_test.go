package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/watch/pass"
)

// BenchmarkWatchPass1000GPUs times one watch pass over a fleet of 125
// machines × 8 GPUs: a week of hourly billing lines (21,000) and the last
// two hours of per-minute telemetry (120,000 samples) in the database, half
// the machines idle for the last 90 minutes. The pass reads no source (the
// telemetry is stored already): what it costs is loading, deciding and
// recording. Run: go test ./e2e -run '^$' -bench WatchPass -benchtime 3x
func BenchmarkWatchPass1000GPUs(b *testing.B) {
	const machines, gpus = 125, 8
	dir := b.TempDir()
	db := filepath.Join(dir, "f.db")
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cost := decimal.RequireFromString("19.20") // 8 GPUs × ¥2.40 an hour
	_, err = st.Import(ctx, store.FileMeta{URI: "bench-bill", SHA256: "bench-bill"}, func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		sum := &ingest.Summary{Format: ingest.FormatFOCUS, Kind: ingest.KindBilling}
		for h := 7 * 24; h > 0; h-- {
			for r := range machines {
				l := finops.BillingLine{Line: sum.Rows + 2, Provider: "AutoDL", ResourceID: fmt.Sprintf("gpu-%03d", r),
					ChargeStart: at.Add(-time.Duration(h) * time.Hour), ChargeEnd: at.Add(-time.Duration(h-1) * time.Hour),
					ChargeCategory: finops.ChargeUsage, PricingMode: finops.ModeHourly, GPUModel: "A100-80GB", GPUCount: gpus,
					EffectiveCost: &cost, Currency: "CNY"}
				if err := sink.Billing(&l); err != nil {
					return nil, err
				}
				sum.Rows++
			}
		}
		return sum, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	_, err = st.Import(ctx, store.FileMeta{URI: "bench-smi", SHA256: "bench-smi"}, func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization, SampleInterval: time.Minute}
		for m := 120; m > 0; m-- {
			for r := range machines {
				for g := range gpus {
					u := 90.0
					if r%2 == 0 && m <= 90 {
						u = 1
					}
					s := finops.GPUSample{Line: sum.Rows + 2, Host: fmt.Sprintf("gpu-%03d", r), Index: g,
						Model: "A100-80GB", Time: at.Add(-time.Duration(m) * time.Minute), Util: &u}
					if err := sink.Sample(&s); err != nil {
						return nil, err
					}
					sum.Rows++
				}
			}
		}
		return sum, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "database: %s\nteams:\n  - name: ml\n    leads: [lead@example.com]\nwatch:\n  channels:\n    - type: slack\n      url_env: X\n", db)
	path := filepath.Join(dir, "finops.yaml")
	if err := os.WriteFile(path, []byte(cfg.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	c, err := config.Load(path, true, capped.ReadRegular)
	if err != nil {
		b.Fatal(err)
	}
	rec := &recorder{}
	m := cli.NewMain(nil, io.Discard, io.Discard)
	m.WatchChannels = func(config.Channel) pass.Sender { return rec }
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		now := at.Add(time.Duration(i) * time.Second) // the first pass alerts, the others find the spells open
		m.Now = func() time.Time { return now }
		if err := m.WatchPass(ctx, c, false, false); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n := len(rec.take()); n != machines/2+1 {
		b.Errorf("%d alerts, want %d (the idle half of the machines)", n, machines/2+1)
	}
}
