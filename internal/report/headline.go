package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
)

// periodName is how a sentence names the report window: "this week" for an
// ISO week ("2026-W48"), else "this period".
func periodName(p analysis.Period) string {
	if strings.Contains(p.Label, "-W") {
		return "this week"
	}
	return "this period"
}

// headline is the one sentence a team lead reads first: what the window cost,
// how much of it paid for idle GPUs, the first thing to do and what all the
// recommendations save a month. The idle cost is one figure here; its parts
// (unallocated, allocated but idle) are its breakdown, not more waste.
func headline(r *analysis.Result) string {
	cur, t := r.Currency, r.Totals
	name := periodName(r.Period)
	var b strings.Builder
	b.WriteString(strings.ToUpper(name[:1]) + name[1:] + " cost " + amount.Rounded(cur, t.Cost))
	switch {
	case !t.IdleKnown():
		// No telemetry covered a billed GPU-hour: idle is unknown, not 0.
		b.WriteString("; idle unknown: no telemetry covered the billed GPUs.")
	case t.IdleCost > 0 && t.IdleLowerBound():
		b.WriteString("; at least " + amount.Rounded(cur, t.IdleCost) + " (" + percentWhole(idleShare(t)) + ") of it paid for idle GPUs (" +
			percentWhole(t.Coverage()) + " of GPU-hours monitored).")
	case t.IdleCost > 0:
		b.WriteString("; " + amount.Rounded(cur, t.IdleCost) + " (" + percentWhole(idleShare(t)) + ") of it paid for idle GPUs.")
	case t.IdleLowerBound():
		b.WriteString("; no monitored GPU sat idle (" + percentWhole(t.Coverage()) + " of GPU-hours monitored).")
	default:
		b.WriteString("; no billed GPU sat idle.")
	}
	if top := topActions(r.Recommendations, 1); len(top) > 0 {
		rec := top[0]
		b.WriteString(" First: " + strings.ToLower(actionText(rec.Action)) + " " + analysis.ShortResourceID(rec.ResourceID) +
			" (" + amount.Rounded(cur, rec.MonthlySavings) + " a month).")
		b.WriteString(" All recommendations together save " + amount.Rounded(cur, t.MonthlySavings) + " a month.")
	} else {
		b.WriteString(" No change would save money at the current usage.")
	}
	return b.String()
}

// percentWhole formats a 0–1 share as a whole percent for a sentence: "51%".
func percentWhole(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(s*100, 'f', 0, 64) + "%"
}

// unheldIdle is the idle cost of GPU-minutes no task held: the idle cost less
// its allocated-but-idle part. It is not totals.unallocated_cost, which also
// counts the active and unmonitored minutes no task held and so can exceed
// the idle cost (telemetry that stops mid-week leaves unmonitored minutes
// nobody held). Never below 0, which only rounding could make it.
func unheldIdle(t analysis.Totals) float64 {
	return max(0, t.IdleCost-t.AllocatedIdleCost)
}
