package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
)

// The dimensions a report's cost can be grouped by (Params.GroupBy): the
// team of metrics.md, a billing tag, the billing account and the provider.
const (
	DimTeam      = "team"
	DimAccount   = "account"
	DimProvider  = "provider"
	DimTagPrefix = "tag:"
)

// Untagged is the group of the lines that carry no value for a dimension,
// so that a dimension's groups always add up to the total.
const Untagged = "(untagged)"

// maxGroups bounds the groups of one dimension: a tag holding a request id
// would otherwise give the JSON a group per line. The smallest beyond it are
// one "(other)" group, so the groups still add up.
const maxGroups = 500

// otherGroup holds the groups past maxGroups.
const otherGroup = "(other)"

// ValidDimension reports whether d names a dimension: team, account,
// provider or tag:<key> with a key.
func ValidDimension(d string) bool {
	switch d {
	case DimTeam, DimAccount, DimProvider:
		return true
	}
	return strings.HasPrefix(d, DimTagPrefix) && strings.TrimSpace(d[len(DimTagPrefix):]) != ""
}

// Allocation is the window's cost grouped by one dimension.
type Allocation struct {
	Dimension string            `json:"dimension"`
	Groups    []AllocationGroup `json:"groups"` // by cost, largest first; add up to totals.cost
}

// AllocationGroup is one value of a dimension and its cost.
type AllocationGroup struct {
	Value string  `json:"value"` // bill text: untrusted
	Cost  float64 `json:"cost"`  // exact in minor units: the groups add up to totals.cost
	Share float64 `json:"share"` // of totals.cost, 0–1 (negative for credits)
}

// groupSums are the window's exact cost per value of each non-team
// dimension of GroupBy, added up as lineTotal walks the lines.
type groupSums map[string]map[string]decimal.Decimal

// addLine adds v, one line's share of the window, to its group in every
// dimension.
func (g groupSums) addLine(dims []string, l *finops.BillingLine, v decimal.Decimal) {
	for _, d := range dims {
		var val string
		switch {
		case d == DimTeam:
			continue // from the team split, which works minute by minute
		case d == DimAccount:
			val = l.BillingAccount
		case d == DimProvider:
			val = l.Provider
		default:
			val = l.Tags[strings.TrimPrefix(d, DimTagPrefix)]
		}
		if strings.TrimSpace(val) == "" {
			val = Untagged
		}
		m := g[d]
		if m == nil {
			m = map[string]decimal.Decimal{}
			g[d] = m
		}
		m[val] = m[val].Add(v)
	}
}

// allocations groups the window's cost by every dimension of GroupBy, in
// their order. Each group's cost is in exact minor units, rounded by
// largest remainder (roundToTotal) so that the groups add up to the total
// as the report rounds it.
func (a *analyzer) allocations(g groupSums) []Allocation {
	if len(a.p.GroupBy) == 0 {
		return nil
	}
	r := a.res
	unit := minorUnit(r.Currency)
	total := roundMinor(r.Totals.Cost, unit)
	var out []Allocation
	for _, d := range a.p.GroupBy {
		var vals []string
		var amounts []float64
		if d == DimTeam {
			for _, t := range r.ByTeam {
				vals = append(vals, t.Team)
			}
			amounts = teamAmounts(r, unit)
		} else {
			m := g[d]
			vals = sortedKeys(m)
			for _, v := range vals {
				amounts = append(amounts, m[v].Mul(decimal.NewFromInt(unit)).InexactFloat64())
			}
		}
		vals, amounts = foldSmallest(vals, amounts)
		cents := roundToTotal(total, amounts)
		al := Allocation{Dimension: d, Groups: make([]AllocationGroup, len(vals))}
		for i, v := range vals {
			al.Groups[i] = AllocationGroup{Value: v, Cost: float64(cents[i]) / float64(unit)}
			if total != 0 {
				al.Groups[i].Share = float64(cents[i]) / float64(total)
			}
		}
		sort.SliceStable(al.Groups, func(i, j int) bool {
			if al.Groups[i].Cost != al.Groups[j].Cost {
				return al.Groups[i].Cost > al.Groups[j].Cost
			}
			return al.Groups[i].Value < al.Groups[j].Value
		})
		out = append(out, al)
	}
	return out
}

// teamAmounts are the by_team costs in minor units, in by_team's order: the
// team allocation's and the chargeback's direct costs before rounding.
func teamAmounts(r *Result, unit int64) []float64 {
	out := make([]float64, len(r.ByTeam))
	for i, t := range r.ByTeam {
		out[i] = t.Cost * float64(unit)
	}
	return out
}

// foldSmallest keeps the maxGroups−1 largest groups and adds the rest into
// one otherGroup.
func foldSmallest(vals []string, amounts []float64) ([]string, []float64) {
	if len(vals) <= maxGroups {
		return vals, amounts
	}
	idx := make([]int, len(vals))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return amounts[idx[i]] > amounts[idx[j]] })
	keep := idx[:maxGroups-1]
	sort.Ints(keep)
	var v2 []string
	var a2 []float64
	for _, i := range keep {
		v2, a2 = append(v2, vals[i]), append(a2, amounts[i])
	}
	rest := 0.0
	for _, i := range idx[maxGroups-1:] {
		rest += amounts[i]
	}
	n := len(vals) - (maxGroups - 1)
	return append(v2, fmt.Sprintf("%s %d values", otherGroup, n)), append(a2, rest)
}

// allocate sets the window's allocation and chargeback, once its teams are
// final (the trends' analyses have neither).
func (w *windowAnalysis) allocate() {
	w.a.res.Allocation = w.a.allocations(w.sums.groups)
	w.a.res.Chargeback = w.a.chargeback()
}
