package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/finops-oss/finops/internal/amount"
)

// poolAcc collects one (provider, GPU model) pool over the lookback.
type poolAcc struct {
	provider, model string
	resources       []*gpuResource
	gpus            int
	first           int       // first billed grid index in the lookback, -1 = none
	busy            []float64 // busy GPU-hours per lookback hour
}

func poolKey(r *gpuResource) string {
	return strings.ToLower(r.provider) + "\x00" + strings.ToLower(r.model)
}

// pool returns the accumulator of r's pool, creating it.
func (a *analyzer) pool(r *gpuResource) *poolAcc {
	if a.pools == nil {
		a.pools = map[string]*poolAcc{}
	}
	k := poolKey(r)
	p := a.pools[k]
	if p == nil {
		hours := (a.lb[1] - a.lb[0] + 59) / 60
		p = &poolAcc{provider: r.provider, model: r.model, first: -1, busy: make([]float64, hours)}
		a.pools[k] = p
	}
	p.resources = append(p.resources, r)
	p.gpus += r.gpuCount
	return p
}

// poolResults simulates, for each pool of at least two resources with hourly and
// monthly prices, every count k of monthly cards over the lookback: the k
// cards cost k × p_m a month and cover up to k busy GPUs each hour; busy
// GPU-hours above k are bought hourly at p_h × (1 + release_slack). The k
// with the lowest monthly cost wins (the smaller k on a tie), as commitment
// recommenders do.
func (a *analyzer) poolResults(recs map[string]*Recommendation) []Pool {
	var out []Pool
	for _, k := range sortedKeys(a.pools) {
		p := a.pools[k]
		// A pool of one resource is that resource's own recommendation.
		if len(p.resources) < 2 || p.first < 0 {
			continue
		}
		ph, pm := a.catalogPrice(p.provider, p.model, "hourly"), a.catalogPrice(p.provider, p.model, "monthly")
		if math.IsNaN(ph) || math.IsNaN(pm) {
			continue
		}
		days := float64(a.lb[1]-max(p.first, a.lb[0])) / minutesPerDay
		current := 0.0
		for _, r := range p.resources {
			if rec := recs[r.key]; rec != nil {
				current += rec.CurrentMonthlyCost
			}
		}
		bestK, best := 0, math.Inf(1)
		for k := 0; k <= p.gpus; k++ {
			overflow := 0.0
			for _, b := range p.busy {
				overflow += math.Max(0, b-float64(k))
			}
			c := float64(k)*pm + overflow*ph*(1+a.p.ReleaseSlack)*30/days
			if c < best-1e-9 {
				bestK, best = k, c
			}
		}
		pool := Pool{Provider: p.provider, GPUModel: p.model, Resources: len(p.resources), GPUs: p.gpus,
			CurrentMonthlyCost: current, MonthlyCards: bestK, PoolMonthlyCost: best}
		saving := current - best
		if saving >= math.Max(a.p.MinSavingsPct*current, a.p.MinSavingsAbs) {
			pool.MonthlySavings = saving
			pool.Reason = fmt.Sprintf("%d monthly cards with the rest hourly would cost %s/month instead of %s",
				bestK, amount.Rounded(a.conv.currency, best), amount.Rounded(a.conv.currency, current))
		} else {
			pool.PoolMonthlyCost = current
			pool.Reason = fmt.Sprintf("the current mix is within %s/month of the best (%d monthly cards)",
				amount.Rounded(a.conv.currency, math.Max(saving, 0)), bestK)
		}
		out = append(out, pool)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].MonthlySavings > out[j].MonthlySavings })
	return out
}
