package analysis

import (
	"fmt"
	"math"
	"strconv"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
)

// GPUCount is how many GPUs a set of telemetry series is: whole cards and
// slices (vGPU profiles, MIG instances) counted apart, so that a slice is
// never counted as a card (docs/METRICS.md, "Slices and shared GPUs").
type GPUCount struct {
	Cards  int `json:"cards"`  // whole cards
	Slices int `json:"slices"` // vGPU profiles and MIG instances
	// SliceCards is what the slices add up to in cards: the sum of their
	// memory fractions (a slice of unknown fraction adds nothing).
	SliceCards float64 `json:"slice_cards"`
}

// CountGPUs counts series: a whole card as 1, a slice as a slice worth its
// memory fraction of a card (finops.GPUSlice.Cards).
func CountGPUs(series []*finops.GPUSeries) GPUCount {
	var c GPUCount
	for _, s := range series {
		if s.Slice == nil {
			c.Cards++
			continue
		}
		c.Slices++
		c.SliceCards += s.Slice.Cards()
	}
	return c
}

// String says the count as a sentence's noun: "2 GPUs", "3 slices (0.75 of
// a card)", "1 GPU and 2 slices (0.25 of a card)".
func (c GPUCount) String() string {
	gpus := strconv.Itoa(c.Cards) + " GPU"
	if c.Cards != 1 {
		gpus += "s"
	}
	if c.Slices == 0 {
		return gpus
	}
	slices := strconv.Itoa(c.Slices) + " slice"
	if c.Slices != 1 {
		slices += "s"
	}
	// To the hundredth: a sum of fractions such as three 0.1 slices is
	// 0.30000000000000004 in floating point, not a figure to print.
	slices += fmt.Sprintf(" (%s of a card)", strconv.FormatFloat(math.Round(c.SliceCards*100)/100, 'f', -1, 64))
	if c.Cards == 0 {
		return slices
	}
	return gpus + " and " + slices
}

// sliceLabel is a slice's name for the data-quality box: "MIG 1g.10gb",
// "vGPU A100-10C"; "" for a whole card.
func sliceLabel(sl *finops.GPUSlice) string {
	if sl == nil {
		return ""
	}
	return sl.Kind + " " + sl.Profile
}

// slotCount counts the series r's slots hold.
func (r *gpuResource) slotCount() GPUCount {
	series := make([]*finops.GPUSeries, len(r.slots))
	for i, sl := range r.slots {
		series[i] = sl.series
	}
	return CountGPUs(series)
}

// billsSlices reports whether a bill's GPU model is a slice ("A100-10C",
// "A100-80GB MIG 1g.10gb"): its GPU count counts slices, priced per slice,
// and a slice's telemetry in its slots is what it bills.
func billsSlices(model string) bool {
	_, ok := gpu.ParseSlice(model)
	return ok
}
