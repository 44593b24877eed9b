package analysis

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/canceltest"
)

// fleet is a quarter of lookback over n resources of 8 GPUs, billed monthly
// and without telemetry: seconds of minute-grid work in all.
func fleet(n int) *Input {
	start := day0.AddDate(0, -3, 0)
	in := &Input{
		Window:   Window{Start: day0, End: day0.AddDate(0, 0, 7), Label: "2026-W45"},
		Lookback: Window{Start: start, End: day0.AddDate(0, 0, 7)},
		Params:   DefaultParams(),
	}
	for i := range n {
		in.Lines = append(in.Lines, gpuLine(fmt.Sprintf("gpu-%03d", i), finops.ModeMonthly, "20000", start, day0.AddDate(0, 0, 7), 8))
	}
	return in
}

// TestAnalyzeCancel: an analysis stops with ctx's error within a second of
// the cancel, though the whole takes seconds (fleet(300): ≈ 7 s on a loaded
// 2-CPU machine); a cancelled ctx stops it before any work.
func TestAnalyzeCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := AnalyzeContext(ctx, oneDay()); !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("cancelled before: %v, %v; want context.Canceled and no result", res, err)
	}

	canceltest.Stops(t, 100*time.Millisecond, func(ctx context.Context) error {
		_, err := AnalyzeContext(ctx, fleet(300))
		return err
	})
}
