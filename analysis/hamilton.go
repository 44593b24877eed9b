package analysis

import (
	"math"
	"sort"

	"github.com/finops-oss/finops/amount"
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

// roundToTotal rounds amounts (in minor units, possibly fractional and
// negative) to whole minor units that add up to total exactly, by largest
// remainder (Hamilton's method): each amount is floored, then the minor
// units still missing go one each to the amounts with the largest
// fractional parts (ties: the earlier amount). When the amounts add up to
// more than total (float sums can drift by a fraction of a cent), the
// amounts with the smallest fractional parts give one back each. A
// difference larger than the number of amounts goes round again.
func roundToTotal(total int64, amounts []float64) []int64 {
	out := make([]int64, len(amounts))
	if len(amounts) == 0 {
		return out
	}
	frac := make([]float64, len(amounts))
	var sum int64
	for i, v := range amounts {
		f := math.Floor(v)
		out[i], frac[i] = int64(f), v-f
		sum += out[i]
	}
	order := make([]int, len(amounts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return frac[order[i]] > frac[order[j]] })
	left := total - sum
	for k := 0; left > 0; k++ {
		out[order[k%len(order)]]++
		left--
	}
	for k := 0; left < 0; k++ {
		out[order[len(order)-1-k%len(order)]]--
		left++
	}
	return out
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
