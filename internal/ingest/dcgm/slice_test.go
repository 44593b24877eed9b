package dcgm

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
)

// TestParseSliceScrapes: a vGPU guest's scrape and a MIG host's scrape read
// as slices of their parent card with the hand-computed fractions, and the
// GPUs they add up to are fractions of a card, never whole cards (issue
// #34). On main the vGPU was model A100-40GB, a whole card, through the
// "A100" alias, and each MIG instance a whole A100-80GB. The files are
// written for finops in dcgm-exporter's text format: its default counters'
// names and labels (gpu, UUID, device, modelName, Hostname,
// DCGM_FI_DRIVER_VERSION; GPU_I_PROFILE and GPU_I_ID on a MIG instance's
// series, NVIDIA DCGM-Exporter documentation, "MIG support"), the profiles
// those of NVIDIA's vGPU and MIG user guides.
func TestParseSliceScrapes(t *testing.T) {
	type want struct {
		key, model, kind, profile string
		mem, compute              float64
		util, used                float64
		total                     *float64
	}
	for _, c := range []struct {
		file  string
		want  []want
		cards float64 // Σ memory fractions, by hand
	}{
		// GRID A100-10C: a 10 GB profile of the 40 GB A100 PCIe → 10/40;
		// time-sliced, so no dedicated compute. FB_TOTAL 10239 MiB.
		{"dcgm-vgpu-grid-a100-10c.prom", []want{
			{"GPU-4b1f2c3d-8e9a-11ee-b5a7-0242ac120002", "A100-40GB", "vGPU", "A100-10C", 0.25, 0, 37, 4096, new(10239.0)},
		}, 0.25},
		// An A100-SXM4-80GB in MIG mode: 3g.40gb = 40/80 and 3/7, two
		// 1g.10gb = 10/80 and 1/7 each; 1/2 + 1/8 + 1/8 = 3/4 of a card.
		{"dcgm-mig-a100-80gb.prom", []want{
			{"GPU-9c2e7a51-3d4b-6f80-1a2b-c3d4e5f60718/mig-1", "A100-80GB", "MIG", "3g.40gb", 0.5, 3.0 / 7, 62, 20480, nil},
			{"GPU-9c2e7a51-3d4b-6f80-1a2b-c3d4e5f60718/mig-13", "A100-80GB", "MIG", "1g.10gb", 0.125, 1.0 / 7, 0, 0, nil},
			{"GPU-9c2e7a51-3d4b-6f80-1a2b-c3d4e5f60718/mig-14", "A100-80GB", "MIG", "1g.10gb", 0.125, 1.0 / 7, 91, 9000, nil},
		}, 0.75},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "..", "testdata", "telemetry", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sink := &recSink{}
			at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
			if _, err := Parse(t.Context(), f, Options{Name: c.file, ScrapeTime: at, Catalog: gpu.NewCatalog()}, sink); err != nil {
				t.Fatal(err)
			}
			got := map[string]*finops.GPUSample{}
			cards, whole := 0.0, 0
			for _, s := range sink.samples {
				got[s.UUID] = s
				cards += s.Slice.Cards()
				if s.Slice == nil {
					whole++
				}
			}
			if len(sink.samples) != len(c.want) {
				t.Fatalf("%d samples, want %d", len(sink.samples), len(c.want))
			}
			for _, w := range c.want {
				s := got[w.key]
				if s == nil {
					t.Fatalf("no sample of %s", w.key)
				}
				if s.Model != w.model || s.Slice == nil {
					t.Fatalf("%s: model %q slice %+v, want a slice of %s", w.key, s.Model, s.Slice, w.model)
				}
				sl := s.Slice
				if sl.Kind != w.kind || sl.Profile != w.profile || math.Abs(sl.MemoryFraction-w.mem) > 1e-12 ||
					math.Abs(sl.ComputeFraction-w.compute) > 1e-12 {
					t.Errorf("%s: slice %+v, want %s %s memory %v compute %v", w.key, *sl, w.kind, w.profile, w.mem, w.compute)
				}
				if s.Util == nil || math.Abs(*s.Util-w.util) > 1e-9 || !eq(s.MemUsed, new(w.used)) || w.total != nil && !eq(s.MemTotal, w.total) {
					t.Errorf("%s: util %v used %v total %v, want %v %v %v", w.key, s.Util, s.MemUsed, s.MemTotal, w.util, w.used, w.total)
				}
			}
			if whole != 0 || math.Abs(cards-c.cards) > 1e-12 {
				t.Errorf("counted as %d whole cards and %v card(s), want 0 whole and %v", whole, cards, c.cards)
			}
		})
	}
}
