package analysis

import (
	"math"

	"github.com/finops-oss/finops/internal/amount"
)

// minorUnit is how many minor units (cents) make one unit of the currency:
// 100 for USD, 1 for JPY. Allocations and chargebacks are whole minor units.
func minorUnit(currency string) int64 {
	u := int64(1)
	for range amount.MinorDigits(currency) {
		u *= 10
	}
	return u
}

// roundMinor is v in whole minor units.
func roundMinor(v float64, unit int64) int64 { return int64(math.Round(v * float64(unit))) }

// roundToTotal is amount.RoundToTotal: the allocations' and chargebacks'
// largest remainder, shared with the JSON summary's parts (report).
func roundToTotal(total int64, amounts []float64) []int64 {
	return amount.RoundToTotal(total, amounts)
}

// apportion splits total minor units in proportion to weights (none
// negative, some positive) by largest remainder: the shares add up to total
// exactly, and none is more than one minor unit from its exact quota.
func apportion(total int64, weights []float64) []int64 {
	var w float64
	for _, v := range weights {
		w += v
	}
	quotas := make([]float64, len(weights))
	for i, v := range weights {
		quotas[i] = float64(total) * v / w
	}
	return roundToTotal(total, quotas)
}
