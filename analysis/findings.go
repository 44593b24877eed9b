package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops/amount"
)

// findings turns the result into the ranked list of things worth acting on.
// Money is per month for recommendations and in the window otherwise; both
// rank together because a team lead reads them as "how much is at stake".
func findings(r *Result, p Params) []Finding {
	days := r.Period.End.Sub(r.Period.Start).Hours() / 24
	total := math.Abs(r.Totals.Cost)
	floor := p.SpikeFloor
	if floor <= 0 {
		floor = math.Max(0.01*total, 1)
	}
	cur := r.Currency
	var out []Finding
	add := func(kind, resource, team string, m float64, monthly bool, text string) {
		base := total
		if monthly && days > 0 {
			base = total * 30 / days
		}
		out = append(out, Finding{Kind: kind, Severity: severity(m, base), ResourceID: resource, Team: team,
			Money: m, Text: text})
	}

	teamOf := map[string]string{}
	for _, res := range r.ByResource {
		teamOf[res.ResourceID] = res.Team
	}
	for _, rec := range r.Recommendations {
		if rec.Action == ActionKeep {
			continue
		}
		add(FindingRecommendation, rec.ResourceID, teamOf[rec.ResourceID], rec.MonthlySavings, true,
			fmt.Sprintf("%s %s: %s", actionTitle(rec.Action), ShortResourceID(rec.ResourceID), rec.Reason))
	}

	// Forgotten instances: idle runs of ForgottenSpan or more (a weekend, a
	// night), one finding per resource listing its runs, GPUs idle together
	// counted once per run.
	type run struct {
		start, end time.Time
		gpus       int
		hours      float64
	}
	runs := map[string][]*run{}
	cost := map[string]float64{}
	for _, sp := range r.IdleSpans {
		if sp.Hours < p.ForgottenSpan.Hours() {
			continue
		}
		cost[sp.ResourceID] += sp.Cost
		var found *run
		for _, rn := range runs[sp.ResourceID] {
			if rn.start.Equal(sp.Start) && rn.end.Equal(sp.End) {
				found = rn
			}
		}
		if found == nil {
			found = &run{start: sp.Start, end: sp.End, hours: sp.Hours}
			runs[sp.ResourceID] = append(runs[sp.ResourceID], found)
		}
		found.gpus++
	}
	loc, err := time.LoadLocation(r.Period.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	for _, id := range sortedKeys(runs) {
		rs := runs[id]
		sort.Slice(rs, func(i, j int) bool { return rs[i].start.Before(rs[j].start) })
		var parts []string
		for _, rn := range rs {
			parts = append(parts, fmt.Sprintf("%s (%.0f h × %d GPU)", spanText(rn.start, rn.end, r.Period.Start, loc), rn.hours, rn.gpus))
		}
		add(FindingForgotten, id, teamOf[id], cost[id], false, fmt.Sprintf(
			"%s sat idle while billed: %s; %s of idle time in runs of %.0f h or more", ShortResourceID(id),
			strings.Join(parts, ", "), amount.Rounded(cur, cost[id]), p.ForgottenSpan.Hours()))
	}

	for _, t := range r.Tasks {
		if t.IdleCost >= floor {
			add(FindingAllocatedIdle, "", t.Team, t.IdleCost, false, fmt.Sprintf(
				"task %s held GPUs it did not use: %s of its %s was idle time (fix the job, not the machine)",
				t.Task, amount.Rounded(cur, t.IdleCost), amount.Rounded(cur, t.Cost)))
		}
	}
	for _, res := range r.ByResource {
		if res.SaturatedHours > p.SaturatedSpan.Hours() {
			add(FindingSaturated, res.ResourceID, res.Team, 0, false, fmt.Sprintf(
				"%s ran above %.0f%% for %.1f h in a row: jobs may be queueing for it", ShortResourceID(res.ResourceID),
				p.TargetBandHigh, res.SaturatedHours))
		}
		if res.GPUHoursBilled > 0 && res.GPUHoursUnmonitored >= res.GPUHoursBilled-1e-9 {
			add(FindingNoTelemetry, res.ResourceID, res.Team, res.UnmonitoredCost, false, fmt.Sprintf(
				"%s has no utilization data: %s of GPU time cannot be judged; add its host to the telemetry sources",
				ShortResourceID(res.ResourceID), amount.Rounded(cur, res.UnmonitoredCost)))
		}
		if spike(res.Cost, res.PreviousCost, p.SpikePct, floor) {
			add(FindingSpendSpike, res.ResourceID, res.Team, res.Cost-res.PreviousCost, false, fmt.Sprintf(
				"%s cost %s, up %.0f%% from %s in the previous period", ShortResourceID(res.ResourceID), amount.Rounded(cur, res.Cost),
				(res.Cost/res.PreviousCost-1)*100, amount.Rounded(cur, res.PreviousCost)))
		}
	}
	for _, t := range r.ByTeam {
		if spike(t.Cost, t.PreviousCost, p.SpikePct, floor) {
			add(FindingSpendSpike, "", t.Team, t.Cost-t.PreviousCost, false, fmt.Sprintf(
				"team %s spent %s, up %.0f%% from %s in the previous period", t.Team, amount.Rounded(cur, t.Cost),
				(t.Cost/t.PreviousCost-1)*100, amount.Rounded(cur, t.PreviousCost)))
		}
		if t.Budget != nil && t.MonthForecast > *t.Budget {
			add(FindingBudget, "", t.Team, t.MonthForecast-*t.Budget, true, fmt.Sprintf(
				"team %s is on course for %s this month against a budget of %s (%s so far)", t.Team,
				amount.Rounded(cur, t.MonthForecast), amount.Rounded(cur, *t.Budget), amount.Rounded(cur, t.MonthToDate)))
		}
	}
	if c := r.Totals.UnusedCommitmentCost; c > 0 {
		add(FindingUnusedCommit, "", "", c, false, fmt.Sprintf(
			"%s of commitments (reservations, savings plans) was paid for and used by nothing", amount.Rounded(cur, c)))
	}

	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Money != b.Money {
			return a.Money > b.Money
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.ResourceID != b.ResourceID {
			return a.ResourceID < b.ResourceID
		}
		return a.Team < b.Team
	})
	return out
}

func spike(cur, prev, pct, floor float64) bool {
	return prev > 0 && cur > prev*(1+pct) && cur-prev >= floor
}

// severity grades money against the spend it belongs to.
func severity(m, base float64) string {
	switch {
	case base > 0 && m >= 0.10*base:
		return "high"
	case base > 0 && m >= 0.02*base:
		return "medium"
	}
	return "low"
}

func actionTitle(a string) string {
	s := strings.ReplaceAll(a, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// spanText is an idle run as a reader finds it on a calendar: "Mon 23 Nov
// 00:00 – Mon 30 Nov 00:00", a weekday alone being ambiguous ("Mon 00:00 –
// Mon 00:00" for a whole week). Both ends say the year when the run crosses
// a new year or lies in another year than the period's start.
func spanText(start, end, period time.Time, loc *time.Location) string {
	start, end = start.In(loc), end.In(loc)
	layout := "Mon 2 Jan 15:04"
	if start.Year() != end.Year() || start.Year() != period.In(loc).Year() {
		layout = "Mon 2 Jan 2006 15:04"
	}
	return start.Format(layout) + " – " + end.Format(layout)
}
