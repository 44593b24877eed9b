package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/amount"
)

// findings turns the result into the ranked list of things worth acting on.
// Money is per month for recommendations and in the window otherwise; both
// rank together because a team lead reads them as "how much is at stake".
func findings(r *Result, p Params) []Finding {
	total := math.Abs(r.Totals.Cost)
	fl := &findingList{days: r.Period.End.Sub(r.Period.Start).Hours() / 24, total: total, floor: p.SpikeFloor,
		cur: r.Currency, p: p}
	if fl.floor <= 0 {
		fl.floor = math.Max(0.01*total, 1)
	}
	teamOf := map[string]string{}
	for _, res := range r.ByResource {
		teamOf[res.ResourceID] = res.Team
	}
	for _, rec := range r.Recommendations {
		if rec.Action == ActionKeep {
			continue
		}
		fl.add(FindingRecommendation, rec.ResourceID, teamOf[rec.ResourceID], rec.MonthlySavings, true,
			fmt.Sprintf("%s %s: %s", actionTitle(rec.Action), ShortResourceID(rec.ResourceID), rec.Reason))
	}
	fl.forgotten(r, teamOf)
	fl.tasks(r)
	fl.resources(r)
	fl.teams(r)
	if c := r.Totals.UnusedCommitmentCost; c > 0 {
		fl.add(FindingUnusedCommit, "", "", c, false, fmt.Sprintf(
			"%s of commitments (reservations, savings plans) was paid for and used by nothing", amount.Rounded(fl.cur, c)))
	}
	sortFindings(fl.out)
	return fl.out
}

// findingList collects findings, each graded against the spend it belongs
// to: the window's total, or a month of it for monthly money.
type findingList struct {
	out                []Finding
	days, total, floor float64 // floor: the least money a spike or idle task is worth a finding for
	cur                string
	p                  Params
}

func (fl *findingList) add(kind, resource, team string, m float64, monthly bool, text string) {
	base := fl.total
	if monthly && fl.days > 0 {
		base = fl.total * 30 / fl.days
	}
	fl.out = append(fl.out, Finding{Kind: kind, Severity: severity(m, base), ResourceID: resource, Team: team,
		Money: m, Text: text})
}

// forgottenRun is one idle run of a resource and how many GPUs sat in it.
type forgottenRun struct {
	start, end time.Time
	gpus       int
	hours      float64
}

// forgotten adds the forgotten instances: idle runs of ForgottenSpan or
// more (a weekend, a night), one finding per resource listing its runs,
// GPUs idle together counted once per run.
func (fl *findingList) forgotten(r *Result, teamOf map[string]string) {
	runs := map[string][]*forgottenRun{}
	cost := map[string]float64{}
	for _, sp := range r.IdleSpans {
		if sp.Hours < fl.p.ForgottenSpan.Hours() {
			continue
		}
		cost[sp.ResourceID] += sp.Cost
		var found *forgottenRun
		for _, rn := range runs[sp.ResourceID] {
			if rn.start.Equal(sp.Start) && rn.end.Equal(sp.End) {
				found = rn
			}
		}
		if found == nil {
			found = &forgottenRun{start: sp.Start, end: sp.End, hours: sp.Hours}
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
		fl.add(FindingForgotten, id, teamOf[id], cost[id], false, fmt.Sprintf(
			"%s sat idle while billed: %s; %s of idle time in runs of %.0f h or more", ShortResourceID(id),
			strings.Join(parts, ", "), amount.Rounded(fl.cur, cost[id]), fl.p.ForgottenSpan.Hours()))
	}
}

// tasks adds the tasks that held GPUs idle for at least the floor's worth.
func (fl *findingList) tasks(r *Result) {
	cur := fl.cur
	for _, t := range r.Tasks {
		if t.IdleCost >= fl.floor {
			fl.add(FindingAllocatedIdle, "", t.Team, t.IdleCost, false, fmt.Sprintf(
				"task %s held GPUs it did not use: %s of its %s was idle time (fix the job, not the machine)",
				t.Task, amount.Rounded(cur, t.IdleCost), amount.Rounded(cur, t.Cost)))
		}
	}
}

// resources adds each resource's saturation, missing telemetry and spend
// spike.
func (fl *findingList) resources(r *Result) {
	cur, p := fl.cur, fl.p
	for _, res := range r.ByResource {
		if res.SaturatedHours > p.SaturatedSpan.Hours() {
			fl.add(FindingSaturated, res.ResourceID, res.Team, 0, false, fmt.Sprintf(
				"%s ran above %.0f%% for %.1f h in a row: jobs may be queueing for it", ShortResourceID(res.ResourceID),
				p.TargetBandHigh, res.SaturatedHours))
		}
		if res.GPUHoursBilled > 0 && res.GPUHoursUnmonitored >= res.GPUHoursBilled-1e-9 {
			fl.add(FindingNoTelemetry, res.ResourceID, res.Team, res.UnmonitoredCost, false, fmt.Sprintf(
				"%s has no utilization data: %s of GPU time cannot be judged; add its host to the telemetry sources",
				ShortResourceID(res.ResourceID), amount.Rounded(cur, res.UnmonitoredCost)))
		}
		if spike(res.Cost, res.PreviousCost, p.SpikePct, fl.floor) {
			fl.add(FindingSpendSpike, res.ResourceID, res.Team, res.Cost-res.PreviousCost, false, fmt.Sprintf(
				"%s cost %s, up %.0f%% from %s in the previous period", ShortResourceID(res.ResourceID), amount.Rounded(cur, res.Cost),
				(res.Cost/res.PreviousCost-1)*100, amount.Rounded(cur, res.PreviousCost)))
		}
	}
}

// teams adds each team's spend spike and budget overrun.
func (fl *findingList) teams(r *Result) {
	cur := fl.cur
	for _, t := range r.ByTeam {
		if spike(t.Cost, t.PreviousCost, fl.p.SpikePct, fl.floor) {
			fl.add(FindingSpendSpike, "", t.Team, t.Cost-t.PreviousCost, false, fmt.Sprintf(
				"team %s spent %s, up %.0f%% from %s in the previous period", t.Team, amount.Rounded(cur, t.Cost),
				(t.Cost/t.PreviousCost-1)*100, amount.Rounded(cur, t.PreviousCost)))
		}
		if t.Budget != nil && t.MonthForecast > *t.Budget {
			fl.add(FindingBudget, "", t.Team, t.MonthForecast-*t.Budget, true, fmt.Sprintf(
				"team %s is on course for %s this month against a budget of %s (%s so far)", t.Team,
				amount.Rounded(cur, t.MonthForecast), amount.Rounded(cur, *t.Budget), amount.Rounded(cur, t.MonthToDate)))
		}
	}
}

// sortFindings ranks by money, then by kind, resource and team, so that
// equal money always lists in the same order.
func sortFindings(out []Finding) {
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
