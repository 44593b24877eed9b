package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/amount"
)

const minutesPerDay = 24 * 60

// prices are one resource's per-GPU prices in the reporting currency; NaN = unknown.
type prices struct{ hourly, daily, weekly, monthly, spot float64 }

// catalogPrice is the catalog's per-GPU price for a provider, GPU model and
// mode in the reporting currency; NaN when the catalog has none.
func (a *analyzer) catalogPrice(provider, model, mode string) float64 {
	v := math.NaN()
	for _, c := range a.in.Prices {
		if c.Mode == mode && strings.EqualFold(c.Provider, provider) && strings.EqualFold(c.GPUModel, model) {
			if p, ok := a.conv.price(c.Price, c.Currency); ok {
				v = p
			}
		}
	}
	return v
}

// lookupPrices takes the catalog's prices for the resource's provider and GPU
// model, and falls back to the resource's own observed rate for its current
// mode: for a monthly rental its contract's price (contract, NaN when not
// known), else its lookback's cost per 30 days.
func (a *analyzer) lookupPrices(r *gpuResource, lu *usage, days, contract float64) prices {
	p := prices{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	for _, c := range a.in.Prices {
		if !strings.EqualFold(c.Provider, r.provider) || !strings.EqualFold(c.GPUModel, r.model) {
			continue
		}
		v, ok := a.conv.price(c.Price, c.Currency)
		if !ok {
			a.warn("price catalog: no exchange rate for %s (%s %s %s)", c.Currency, c.Provider, c.GPUModel, c.Mode)
			continue
		}
		switch c.Mode {
		case finops.ModeHourly:
			p.hourly = v
		case finops.ModeDaily:
			p.daily = v
		case finops.ModeWeekly:
			p.weekly = v
		case finops.ModeMonthly:
			p.monthly = v
		case finops.ModeSpot:
			p.spot = v
		}
	}
	if lu.billed > 0 {
		switch r.mode {
		case finops.ModeHourly:
			if math.IsNaN(p.hourly) {
				p.hourly = lu.cost / (lu.billed / 60)
			}
		case finops.ModeMonthly:
			if !math.IsNaN(contract) && math.IsNaN(p.monthly) {
				p.monthly = contract / float64(r.gpuCount)
			} else if math.IsNaN(p.monthly) && days > 0 {
				p.monthly = lu.cost * 30 / days / float64(r.gpuCount)
			}
		case finops.ModeSpot:
			if math.IsNaN(p.spot) {
				p.spot = lu.cost / (lu.billed / 60)
			}
		}
	}
	return p
}

// recommend applies metrics.md §Recommendation to one resource's lookback.
//
// busyDays and busyWeeks count the lookback's 24-hour and 7-day blocks with any
// active GPU-minute: a daily or weekly rental must cover each of them whole.
func (a *analyzer) recommend(r *gpuResource, lu *usage, busyDays, busyWeeks int) Recommendation {
	p := a.p
	rec := Recommendation{ResourceID: r.key, GPUModel: r.model, GPUCount: r.gpuCount, CurrentMode: r.mode,
		Action: ActionKeep}
	if lu.billed == 0 {
		rec.Confidence, rec.Reason = "low", "not billed in the lookback"
		return rec
	}
	days := float64(a.lb[1]-max(lu.first, a.lb[0])) / minutesPerDay
	rec.CurrentMonthlyCost = lu.cost * 30 / days
	contract := math.NaN() // the whole resource's monthly price, once for both uses
	if c, ok := r.contractMonthly(a.tl.t0+int64(a.lb[0]), a.tl.t0+int64(a.lb[1])); ok {
		contract = c
	}
	if !math.IsNaN(contract) && r.mode == finops.ModeMonthly {
		rec.CurrentMonthlyCost = contract // the contract's price, exactly (metrics.md §Recommendation)
	}
	rec.RecommendedMonthlyCost = rec.CurrentMonthlyCost
	rec.Confidence = confidence(days, lu.unmonitoredShare())
	if lu.unmonitored == lu.billed {
		rec.Confidence, rec.Reason = "low", "no utilization data"
		return rec
	}

	n := float64(r.gpuCount)
	// A is per GPU over the GPUs that report (k of n): silent GPUs are
	// unknown, not idle (metrics.md §Partial telemetry).
	k, partial := n, ""
	if len(r.slots) > 0 && len(r.slots) < r.gpuCount {
		k, partial = float64(len(r.slots)), fmt.Sprintf("%d of %d GPUs report; ", len(r.slots), r.gpuCount)
	}
	// Minutes the reporting GPUs were billed but not monitored may have been
	// busy: advice counts them as busy, so that a saving is never made up
	// from missing telemetry (metrics.md §Coverage) — with an exporter that
	// died mid-month, "release" would otherwise grow with the gap.
	gap := max(0, lu.unmonitored-lu.billed*(n-k)/n)
	a30 := (lu.active + gap) / 60 / k * 30 / days
	rec.ActiveHoursPerMonth = a30
	pr := a.lookupPrices(r, lu, days, contract)
	slack := 1 + p.ReleaseSlack
	if !math.IsNaN(pr.hourly) && !math.IsNaN(pr.monthly) && pr.hourly > 0 {
		rec.BreakevenHoursPerMonth = pr.monthly / (pr.hourly * slack)
	}
	busy := fmt.Sprintf("%sbusy %.0f h/month per GPU", partial, a30)
	if gap >= 1 {
		busy = fmt.Sprintf("%sbusy at most %.0f h/month per GPU (its %.0f unmonitored GPU-hours counted as busy)", partial, a30, gap/60)
	}

	if a30 < p.ReleaseBelow {
		rec.Action, rec.RecommendedMonthlyCost, rec.MonthlySavings = ActionRelease, 0, rec.CurrentMonthlyCost
		rec.Reason = fmt.Sprintf("%s, below %.0f h/month: the resource is not doing work; releasing it saves %s/month",
			busy, p.ReleaseBelow, amount.Rounded(a.conv.currency, rec.CurrentMonthlyCost))
		return rec
	}

	best := cheapest(a.rentalOptions(r, pr, a30, n, days, busyDays, busyWeeks))
	breakeven := ""
	if rec.BreakevenHoursPerMonth > 0 {
		breakeven = fmt.Sprintf("; monthly pays off above %.0f h/month", rec.BreakevenHoursPerMonth)
	}
	if best == nil {
		rec.Reason = fmt.Sprintf("%s; no catalog prices for %s %s to compare", busy, r.provider, r.model)
		return rec
	}
	saving := rec.CurrentMonthlyCost - best.cost
	threshold := math.Max(p.MinSavingsPct*rec.CurrentMonthlyCost, p.MinSavingsAbs)
	if saving < threshold || (best.mode == r.mode && best.action != ActionStopWhenIdle) {
		rec.Reason = fmt.Sprintf("%s%s; the current %s rental is already the cheapest option", busy, breakeven, r.mode)
		if saving > 0 && best.mode != r.mode {
			rec.Reason = fmt.Sprintf("%s%s; %s would save only %s/month", busy, breakeven,
				strings.ReplaceAll(best.action, "_", " "), amount.Rounded(a.conv.currency, saving))
		}
		return rec
	}
	rec.Action, rec.RecommendedMonthlyCost, rec.MonthlySavings = best.action, best.cost, saving
	rec.Reason = a.switchReason(best.action, busy, breakeven, saving, lu.billed/60/n*30/days, pr.spot)
	return rec
}

// confidence grades advice by how much of a month the lookback covers and
// how much of it telemetry saw (metrics.md §Recommendation).
func confidence(days, unmonitoredShare float64) string {
	switch {
	case days >= 21 && unmonitoredShare < 0.10:
		return "high"
	case days < 7 || unmonitoredShare > 0.30:
		return "low"
	default:
		return "medium"
	}
}

// rentalOption is one way to rent the resource and its monthly cost.
type rentalOption struct {
	action string
	cost   float64
	mode   string
}

// rentalOptions prices every mode the catalog has for the resource over a
// month of its measured work: hourly for the busy hours (with the release
// slack), monthly whole, daily and weekly for the busy days and weeks,
// spot for interruptible work with its rerun overhead.
func (a *analyzer) rentalOptions(r *gpuResource, pr prices, a30, n, days float64, busyDays, busyWeeks int) []rentalOption {
	p := a.p
	slack := 1 + p.ReleaseSlack
	var opts []rentalOption
	if !math.IsNaN(pr.hourly) {
		act := ActionSwitchToHourly
		if r.mode == finops.ModeHourly {
			act = ActionStopWhenIdle
		}
		opts = append(opts, rentalOption{act, a30 * pr.hourly * slack * n, finops.ModeHourly})
	}
	if !math.IsNaN(pr.monthly) {
		opts = append(opts, rentalOption{ActionSwitchToMonthly, pr.monthly * n, finops.ModeMonthly})
	}
	if !math.IsNaN(pr.daily) {
		opts = append(opts, rentalOption{ActionSwitchToDaily, pr.daily * float64(busyDays) * 30 / days * n, finops.ModeDaily})
	}
	if !math.IsNaN(pr.weekly) {
		opts = append(opts, rentalOption{ActionSwitchToWeekly, pr.weekly * float64(busyWeeks) * 30 / days * n, finops.ModeWeekly})
	}
	if !math.IsNaN(pr.spot) && r.interruptible {
		opts = append(opts, rentalOption{ActionSwitchToSpot, a30 * pr.spot * p.SpotInflation * n, finops.ModeSpot})
	}
	return opts
}

// cheapest is the first of the cheapest options; nil when there is none.
func cheapest(opts []rentalOption) *rentalOption {
	var best *rentalOption
	for i := range opts {
		if best == nil || opts[i].cost < best.cost {
			best = &opts[i]
		}
	}
	return best
}

// switchReason says why the advised switch pays: billedHours is the
// resource's billed hours a month per GPU, spot the spot price per hour.
func (a *analyzer) switchReason(action, busy, breakeven string, saving, billedHours, spot float64) string {
	switch action {
	case ActionStopWhenIdle:
		return fmt.Sprintf("%s but billed %.0f h/month; stopping it when idle saves %s/month",
			busy, billedHours, amount.Rounded(a.conv.currency, saving))
	case ActionSwitchToSpot:
		return fmt.Sprintf("%s on interruptible work; spot at %s/h with %.0f%% rerun overhead saves %s/month",
			busy, amount.Rounded(a.conv.currency, spot), (a.p.SpotInflation-1)*100, amount.Rounded(a.conv.currency, saving))
	default:
		return fmt.Sprintf("%s%s; %s saves %s/month", busy, breakeven,
			strings.ReplaceAll(action, "_", " "), amount.Rounded(a.conv.currency, saving))
	}
}
