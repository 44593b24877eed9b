package reportjob

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/store"
)

// The store failing under what the analysis reads as it goes — the review's
// line stream, a GPU's minutes — is a StoreReadError (exit 1, nothing useful
// written), as a failed load before the analysis is; only the analysis' own
// refusals are ConfigErrors (exit 2). The store here is closed, so every
// read fails.
func TestAnalyzeStoreReadErrors(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "finops.db"))
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	win := analysis.Window{Start: day, End: day.Add(24 * time.Hour)}
	sum := store.LineSummary{Currencies: map[string][]string{"USD": {"bill.csv"}}, First: day, Last: win.End, Count: 1}
	var outline finops.GPUSeries
	outline.Key, outline.Host = "GPU-1", "gpu-1"
	outline.SetSpan(day.Unix()/60, day.Unix()/60+60)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		in         func(*analysis.Input)
		wantConfig bool // a ConfigError; else a StoreReadError
	}{
		{"the line stream", func(in *analysis.Input) { in.LineStream = LineStream(st, sum, win.Start, win.End) }, false},
		{"a GPU's minutes", func(in *analysis.Input) {
			in.GPUs, in.LoadSeries = []finops.GPUSeries{outline}, LoadSeries(st, win.Start, win.End)
		}, false},
		{"an empty window, the analysis' refusal", func(in *analysis.Input) { in.Window.End = in.Window.Start }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &analysis.Input{Window: win, Lookback: win, Params: analysis.DefaultParams(), SkipTrends: true}
			tc.in(in)
			_, err := Analyze(ctx, in)
			isConfig, isRead := errors.As(err, new(ConfigError)), errors.As(err, new(StoreReadError))
			if err == nil || isConfig != tc.wantConfig || isRead == tc.wantConfig {
				t.Errorf("Analyze: %v (config error %v, store read error %v); want config error %v", err, isConfig, isRead, tc.wantConfig)
			}
		})
	}
}
