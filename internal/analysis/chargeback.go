package analysis

import (
	"strings"
)

// Chargeback rules (Params.Chargeback): how the cost no team owns is spread
// back onto the teams (docs/METRICS.md §Chargeback).
const (
	SpreadNone         = "none"
	SpreadProportional = "proportional"
	SpreadEven         = "even"
	SpreadTeamPrefix   = "team:"
)

// ChargebackRules say how the two pools are spread; "" is none.
type ChargebackRules struct {
	Unallocated string
	Idle        string
}

// On reports whether any pool is spread: with both rules none the report is
// today's (no chargeback key).
func (c ChargebackRules) On() bool {
	return rule(c.Unallocated) != SpreadNone || rule(c.Idle) != SpreadNone
}

func rule(r string) string {
	if r == "" {
		return SpreadNone
	}
	return r
}

// Chargeback is every team's direct cost with its share of the cost no team
// owns: the unallocated pool (charges of no team, less their idle) and the
// idle pool (idle GPU time on resources no team owns). All amounts are exact
// minor units: the teams' charged-back costs add up to Total, the bill of
// the window, exactly.
type Chargeback struct {
	UnallocatedRule string           `json:"unallocated_rule"`
	IdleRule        string           `json:"idle_rule"`
	Total           float64          `json:"total"`            // totals.cost in minor units
	UnallocatedPool float64          `json:"unallocated_pool"` // spread by UnallocatedRule
	IdlePool        float64          `json:"idle_pool"`        // spread by IdleRule
	Teams           []TeamChargeback `json:"teams"`            // by_team's order
}

// TeamChargeback is one team's row: Direct + Unallocated + Idle =
// ChargedBack. The unassigned row gives its pools away: its Unallocated and
// Idle are negative, what was spread from it.
type TeamChargeback struct {
	Team        string  `json:"team"`
	Direct      float64 `json:"direct"`
	Unallocated float64 `json:"unallocated"`
	Idle        float64 `json:"idle"`
	ChargedBack float64 `json:"charged_back"`
}

// chargeback spreads the unassigned team's cost onto the other teams by
// the rules, in whole minor units (docs/METRICS.md §Chargeback):
//
//   - every team's direct cost is its by_team cost rounded by largest
//     remainder to the bill (totals.cost in minor units), so the direct
//     column adds up to the bill;
//   - the idle pool is the unassigned team's idle cost (idle GPU-minutes on
//     resources no team owns, whether or not a task of no team held them);
//     a team's own idle stays in its direct cost and is never spread;
//   - the unallocated pool is the rest of the unassigned team's cost: GPU
//     time on resources no team owns that was not idle, and every non-GPU
//     charge (tax, support, storage) of no team;
//   - each pool goes to the teams other than unassigned by its rule,
//     apportioned by largest remainder; a pool whose rule is none, or that
//     has nobody to go to, stays with unassigned.
func (a *analyzer) chargeback() *Chargeback {
	rules := a.p.Chargeback
	if !rules.On() {
		return nil
	}
	r := a.res
	unit := minorUnit(r.Currency)
	total := roundMinor(r.Totals.Cost, unit)
	var sum float64
	for _, t := range r.ByTeam {
		sum += t.Cost
	}
	if d := roundMinor(sum, unit) - total; d > 1 || d < -1 {
		a.warn("chargeback: the teams' costs add up to %.2f, the bill to %.2f: the difference was rounded into the teams by largest remainder",
			sum, r.Totals.Cost)
	}
	direct := roundToTotal(total, teamAmounts(r, unit))
	unal, idle := make([]int64, len(direct)), make([]int64, len(direct))

	ua := -1
	for i, t := range r.ByTeam {
		if t.Team == unassigned {
			ua = i
		}
	}
	var idlePool, unalPool int64
	if ua >= 0 {
		idlePool = roundMinor(r.ByTeam[ua].IdleCost, unit)
		unalPool = direct[ua] - idlePool
		a.spread("unallocated", rule(rules.Unallocated), unalPool, ua, direct, unal)
		a.spread("idle", rule(rules.Idle), idlePool, ua, direct, idle)
	}
	cb := &Chargeback{
		UnallocatedRule: rule(rules.Unallocated), IdleRule: rule(rules.Idle),
		Total: minor(total, unit), UnallocatedPool: minor(unalPool, unit), IdlePool: minor(idlePool, unit),
		Teams: make([]TeamChargeback, len(direct)),
	}
	for i, t := range r.ByTeam {
		cb.Teams[i] = TeamChargeback{Team: t.Team, Direct: minor(direct[i], unit), Unallocated: minor(unal[i], unit),
			Idle: minor(idle[i], unit), ChargedBack: minor(direct[i]+unal[i]+idle[i], unit)}
	}
	return cb
}

// spread gives pool minor units from the unassigned row ua to the other
// teams by rule, into share (the unassigned row's share is minus what went).
func (a *analyzer) spread(pool, rule string, amount int64, ua int, direct, share []int64) {
	if amount == 0 || rule == SpreadNone {
		return
	}
	teams := a.res.ByTeam
	weights := make([]float64, len(teams))
	var ok bool
	even := func() {
		for i := range teams {
			if i != ua {
				weights[i], ok = 1, true
			}
		}
	}
	switch {
	case rule == SpreadEven:
		even()
	case rule == SpreadProportional:
		for i := range teams {
			if i != ua && direct[i] > 0 {
				weights[i], ok = float64(direct[i]), true
			}
		}
		if !ok {
			a.warn("chargeback: no team has a positive direct cost to spread the %s pool in proportion to: it is spread evenly", pool)
			even()
		}
	case strings.HasPrefix(rule, SpreadTeamPrefix):
		name := strings.TrimPrefix(rule, SpreadTeamPrefix)
		for i, t := range teams {
			if i != ua && strings.EqualFold(t.Team, name) {
				weights[i], ok = 1, true
			}
		}
		if !ok {
			a.warn("chargeback: team %q of the %s rule has no row in the report: the pool stays with %s", name, pool, unassigned)
			return
		}
	}
	if !ok {
		a.warn("chargeback: no team to spread the %s pool onto: it stays with %s", pool, unassigned)
		return
	}
	for i, v := range apportion(amount, weights) {
		share[i] += v
	}
	share[ua] -= amount
}

func minor(v, unit int64) float64 { return float64(v) / float64(unit) }
