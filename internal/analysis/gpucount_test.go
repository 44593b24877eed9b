package analysis

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
)

// TestSlicesNotCards: the MIG scrape of issue #34 (an A100-80GB as 3g.40gb
// and two 1g.10gb instances, each its own series) matched to nothing is
// listed as slices of the A100-80GB and counted as 3 slices worth 3/4 of a
// card (1/2 + 1/8 + 1/8), not as 3 GPUs; a resource billed for 1 GPU whose
// telemetry is a vGPU slice says so. On main the instances were three
// A100-80GB cards.
func TestSlicesNotCards(t *testing.T) {
	in := oneDay()
	in.Lines = hourlyLines("vm-train-07", "2.40", day0, 24)
	mig := func(key string, profile string, mem float64) finops.GPUSeries {
		s := series(key, "dgx-a100-03", day0, seg{1440, 50})
		s.Model = "A100-80GB"
		s.Slice = &finops.GPUSlice{Kind: "MIG", Profile: profile, MemoryFraction: mem, ComputeFraction: 1.0 / 7}
		return s
	}
	vgpu := series("GPU-v", "vm-train-07", day0, seg{1440, 37})
	vgpu.Model = "A100-40GB"
	vgpu.Slice = &finops.GPUSlice{Kind: "vGPU", Profile: "A100-10C", MemoryFraction: 0.25}
	in.GPUs = []finops.GPUSeries{vgpu, mig("GPU-m/mig-1", "3g.40gb", 0.5), mig("GPU-m/mig-13", "1g.10gb", 0.125), mig("GPU-m/mig-14", "1g.10gb", 0.125)}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []UnmatchedGPU{
		{GPU: "GPU-m/mig-1", Host: "dgx-a100-03", Model: "A100-80GB", Slice: "MIG 3g.40gb"},
		{GPU: "GPU-m/mig-13", Host: "dgx-a100-03", Model: "A100-80GB", Slice: "MIG 1g.10gb"},
		{GPU: "GPU-m/mig-14", Host: "dgx-a100-03", Model: "A100-80GB", Slice: "MIG 1g.10gb"},
	}
	if got := r.DataQuality.UnmatchedGPUs; !slices.Equal(got, want) {
		t.Errorf("unmatched %+v, want %+v", got, want)
	}
	for _, w := range []string{"3 slices (0.75 of a card) of telemetry match no billed resource",
		"vm-train-07: its telemetry is 1 slice (0.25 of a card): each stands for one of its 1 billed GPUs"} {
		if !slices.ContainsFunc(r.DataQuality.Warnings, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("no warning %q in %q", w, r.DataQuality.Warnings)
		}
	}
}

// TestCountGPUsGenerated: over random mixes of cards and slices, the cards
// are the series without a slice, the slices the rest, and SliceCards the
// sum of their fractions, summed here in another order (largest first).
func TestCountGPUsGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(3434))
	for i := 0; i < 500; i++ {
		var in []*finops.GPUSeries
		cards, fracs := 0, []float64{}
		for j := rng.Intn(20); j > 0; j-- {
			s := &finops.GPUSeries{}
			if rng.Intn(2) == 0 {
				cards++
			} else {
				f := float64(1+rng.Intn(8)) / 8
				if rng.Intn(5) == 0 {
					f = 0 // unknown fraction: a slice worth no card
				}
				s.Slice = &finops.GPUSlice{Kind: "MIG", Profile: "1g.10gb", MemoryFraction: f}
				fracs = append(fracs, f)
			}
			in = append(in, s)
		}
		got := CountGPUs(in)
		slices.Sort(fracs)
		sum := 0.0
		for k := len(fracs) - 1; k >= 0; k-- {
			sum += fracs[k]
		}
		if got.Cards != cards || got.Slices != len(fracs) || math.Abs(got.SliceCards-sum) > 1e-9 {
			t.Fatalf("CountGPUs = %+v, want %d cards, %d slices worth %v", got, cards, len(fracs), sum)
		}
		if got.Cards+got.Slices != len(in) || got.SliceCards > float64(got.Slices) {
			t.Fatalf("CountGPUs = %+v of %d series: a slice counted as more than a card", got, len(in))
		}
	}
}

// TestSliceBilledAsSlice: a bill whose GPU model is the slice (price per
// slice) and the slice's telemetry agree: no warning that a slice stands
// for a card.
func TestSliceBilledAsSlice(t *testing.T) {
	in := oneDay()
	in.Lines = hourlyLines("vm-train-07", "0.60", day0, 24)
	for i := range in.Lines {
		in.Lines[i].GPUModel = "A100-10C"
	}
	s := series("GPU-v", "vm-train-07", day0, seg{1440, 37})
	s.Model, s.Slice = "A100-40GB", &finops.GPUSlice{Kind: "vGPU", Profile: "A100-10C", MemoryFraction: 0.25}
	in.GPUs = []finops.GPUSeries{s}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(r.DataQuality.Warnings, func(w string) bool { return strings.Contains(w, "slice") }) {
		t.Errorf("warnings %q: a slice billed as the slice is no mismatch", r.DataQuality.Warnings)
	}
	if len(r.ByResource) != 1 || r.ByResource[0].GPUModel != "A100-10C" || r.ByResource[0].GPUHoursBilled != 24 {
		t.Errorf("resources %+v: want the A100-10C slice's 24 hours", r.ByResource)
	}
}

// TestGPUCountStringRounds: the slices' worth is said to the hundredth, as
// computed by hand, never with floating-point crumbs (0.1+0.1+0.1 is
// 0.30000000000000004 as a float64).
func TestGPUCountStringRounds(t *testing.T) {
	for _, tc := range []struct {
		c    GPUCount
		want string
	}{
		{GPUCount{Slices: 3, SliceCards: 0.1 + 0.1 + 0.1}, "3 slices (0.3 of a card)"},
		{GPUCount{Cards: 1, Slices: 2, SliceCards: 0.125 + 0.125}, "1 GPU and 2 slices (0.25 of a card)"},
		{GPUCount{Slices: 1, SliceCards: 12.0 / 94}, "1 slice (0.13 of a card)"}, // 1g.12gb of an H100 NVL's 94 GB
		{GPUCount{Cards: 2}, "2 GPUs"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
}
