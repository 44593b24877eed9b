package store

import (
	"context"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// TestSliceRoundTrip: a vGPU and a MIG instance come back from the store
// as slices of their parent model with their fractions, and a whole card
// as a card (issue #34, migration 17); a later file naming the GPU a whole
// card makes it one.
func TestSliceRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	t0 := utc(2026, 11, 2, 8, 0, 0)
	vgpu := &finops.GPUSlice{Kind: "vGPU", Profile: "A100-10C", MemoryFraction: 0.25}
	mig := &finops.GPUSlice{Kind: "MIG", Profile: "1g.10gb", MemoryFraction: 0.125, ComputeFraction: 1.0 / 7}
	samples := []*finops.GPUSample{
		{Line: 1, Host: "vm", Index: 0, UUID: "GPU-v", Model: "A100-40GB", Slice: vgpu, Time: t0, Util: new(37.0)},
		{Line: 2, Host: "dgx", Index: 0, UUID: "GPU-m/mig-13", Model: "A100-80GB", Slice: mig, Time: t0, Util: new(0.0)},
		{Line: 3, Host: "dgx", Index: 1, UUID: "GPU-c", Model: "A100-80GB", Time: t0, Util: new(50.0)},
	}
	sum := &ingest.Summary{Format: "dcgm-exporter", Kind: ingest.KindUtilization}
	mustImport(t, s, "a.prom", feed(sum, nil, samples, nil))
	for _, load := range []func() ([]finops.GPUSeries, error){
		func() ([]finops.GPUSeries, error) { return s.GPUSeries(ctx, t0, t0.Add(time.Minute)) },
		func() ([]finops.GPUSeries, error) { return s.GPUOutlines(ctx, t0, t0.Add(time.Minute)) },
	} {
		got, err := load()
		if err != nil {
			t.Fatal(err)
		}
		by := map[string]finops.GPUSeries{}
		for _, g := range got {
			by[g.Key] = g
		}
		if g := by["GPU-v"]; g.Model != "A100-40GB" || g.Slice == nil || *g.Slice != *vgpu {
			t.Errorf("vGPU: %+v slice %+v, want %+v", g.Model, g.Slice, vgpu)
		}
		if g := by["GPU-m/mig-13"]; g.Model != "A100-80GB" || g.Slice == nil || *g.Slice != *mig {
			t.Errorf("MIG: %+v slice %+v, want %+v", g.Model, g.Slice, mig)
		}
		if g := by["GPU-c"]; g.Model != "A100-80GB" || g.Slice != nil {
			t.Errorf("card: %+v slice %+v, want a whole card", g.Model, g.Slice)
		}
	}
	// A later file that names GPU-v a whole card (its VM given the card).
	whole := []*finops.GPUSample{{Line: 1, Host: "vm", Index: 0, UUID: "GPU-v", Model: "A100-40GB", Time: t0.Add(time.Minute), Util: new(80.0)}}
	mustImport(t, s, "b.prom", feed(sum, nil, whole, nil))
	got, err := s.GPUSeries(ctx, t0, t0.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		if g.Key == "GPU-v" && g.Slice != nil {
			t.Errorf("GPU-v after a whole-card file: slice %+v, want none", g.Slice)
		}
	}
}
