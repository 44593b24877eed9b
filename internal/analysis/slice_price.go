package analysis

import (
	"fmt"
	"math"
	"strconv"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
)

// sliceEstimate is a slice model's hourly price estimated from its card's
// cheapest catalog price × the slice's memory fraction, with the source that
// says so ("estimated from the A100-40GB price × 10/40 (catalog: P)"); NaN
// when model is no slice of known fraction or the card has no hourly price.
// Only a fallback: a price for the slice itself, or its bill's own rate (a
// price per slice), comes first (rentalPrices), because a slice rents for
// what its provider asks, seldom exactly its share of the card.
func sliceEstimate(model string, catalog []Price, conv reviewConverter) (float64, string) {
	sl, ok := gpu.ParseSlice(model)
	if !ok || sl.Parent == "" || sl.MemoryFraction <= 0 {
		return math.NaN(), ""
	}
	best, source := math.NaN(), ""
	for _, c := range catalog {
		if c.Mode != finops.ModeHourly || gpuModelKey(c.GPUModel) != gpuModelKey(sl.Parent) {
			continue
		}
		r, ok := conv.rate(c.Currency)
		if !ok {
			continue
		}
		if v := c.Price * r * sl.MemoryFraction; math.IsNaN(best) || v < best {
			best, source = v, c.Provider
		}
	}
	if math.IsNaN(best) {
		return best, ""
	}
	cardGB := sl.MemoryGB / sl.MemoryFraction
	return best, fmt.Sprintf("estimated from the %s price × %s/%s (catalog: %s)", sl.Parent,
		strconv.FormatFloat(sl.MemoryGB, 'f', -1, 64), strconv.FormatFloat(math.Round(cardGB*1000)/1000, 'f', -1, 64), source)
}
