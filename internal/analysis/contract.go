package analysis

import (
	"math"
	"time"
)

// monthCharge is a GPU usage line billing one month of a monthly rental: its
// minutes [m0, m1) and its whole cost in the reporting currency.
type monthCharge struct {
	m0, m1 int64
	cost   float64
	gpus   int
}

// oneMonth reports whether [start, end) is one month's billing period of a
// monthly rental, whose line's cost is then the contract's monthly price: 28
// to 31 days (a calendar month in any zone, or a provider's 30-day month as
// AutoDL bills 包月), give or take a daylight-saving hour. A prorated first or
// last month is shorter and says nothing of the price.
func oneMonth(start, end time.Time) bool {
	d := end.Sub(start)
	return d >= 28*24*time.Hour-time.Hour && d <= 31*24*time.Hour+time.Hour
}

// contractMonthly is the resource's monthly price as its contract states
// it: the cost of each one-month period its monthly lines bill in the
// lookback [lb0, lb1) (absolute minutes), when every such period costs the
// same and bills all its GPUs. Rebuilding it from the lookback's cost × 30 /
// days reads a ¥20,000 rental as ¥19,700.46 when the lookback crosses a
// 31-day month. ok is false when it is not known.
func (r *gpuResource) contractMonthly(lb0, lb1 int64) (price float64, ok bool) {
	type period struct{ m0, m1 int64 }
	cost, gpus := map[period]float64{}, map[period]int{}
	for _, c := range r.months {
		if c.m1 <= lb0 || c.m0 >= lb1 {
			continue
		}
		p := period{c.m0, c.m1}
		cost[p] += c.cost
		gpus[p] += c.gpus
	}
	if len(cost) == 0 {
		return 0, false
	}
	first := true
	for p, c := range cost {
		if gpus[p] != r.gpuCount {
			return 0, false
		}
		if !first && math.Abs(c-price) > 0.005 {
			return 0, false // the price changed, or a correction changed one month: no one price
		}
		price, first = c, false
	}
	return price, true
}
