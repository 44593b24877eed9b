package prom

import (
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest/dcgm"
)

// TestReplayPowerAboveBound: a Prometheus point whose power is above 1.5×
// its GPU's rated power (an A100: 400 W, so 600 W) is no sample — dropped
// and counted, as an out-of-range utilization is — and one at the bound is
// kept: the power rule of docs/INGEST.md for an answer, which has no rows.
func TestReplayPowerAboveBound(t *testing.T) {
	start := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	gd := &gpuDay{gpu: dcgm.GPU{UUID: "GPU-a", Index: 0, Host: "n"}, model: "A100-80GB", points: newPoints(4)}
	for i, w := range []float64{600, 5000, 1e12, 300} {
		p := gd.points.at(i)
		p.vals[kUtil], p.vals[kPower] = 50, w
		p.has = 1<<kUtil | 1<<kPower
	}
	d := &Day{Start: start, URI: "prometheus://s/2026-11-02", gpus: []*gpuDay{gd}, step: time.Minute}
	sink := &recSink{}
	sum, err := d.Replay(t.Context(), sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.samples) != 2 || *sink.samples[0].PowerWatt != 600 || *sink.samples[1].PowerWatt != 300 {
		t.Errorf("kept %d samples; want the 600 W and 300 W points", len(sink.samples))
	}
	if sum.SamplesDropped != 2 || sum.Rows != 2 {
		t.Errorf("dropped %d, rows %d; want 2 and 2", sum.SamplesDropped, sum.Rows)
	}
}
