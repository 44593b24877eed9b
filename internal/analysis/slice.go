package analysis

import (
	"maps"
	"slices"
	"strings"
)

// ForTeam returns the part of r that belongs to one team: the report a team
// lead receives. team is matched case-insensitively against r.ByTeam; nil
// means the team has no row in this period.
//
// A team's rows are:
//   - ByTeam: its own row (cost, idle cost, budget, previous period, month to date);
//   - ByResource, Recommendations, IdleSpans, HourlyUtil: the resources whose
//     team (config, else `team` tag) is the team;
//   - Tasks and TaskDaily: the tasks whose team is the team, wherever they ran;
//   - Daily: the team's cost per day and GPU model (metrics.md: the task's team,
//     else the resource's team);
//   - Findings: those naming the team, else those on one of its resources;
//   - Trend: its weeks, resources, flags and movers (history_slice.go);
//   - Pools: a pool only when every resource of its provider and GPU model is
//     the team's (a pool shared with other teams is a fleet decision);
//   - DataQuality: the sources that are ok, and those not ok that touch the
//     team's resources (SourceStatus.Touches: a stale telemetry source only
//     the teams whose resources are billed past its data, a billing failure
//     everyone), so that its Incomplete carries only its own reasons and its
//     own coverage; rejected rows and exchange rates as for the whole report
//     (they concern everyone), warnings that do not name another team's resource.
//
// Totals are the team's: cost, GPU cost, idle cost and previous cost from its ByTeam row (so
// they agree with the all-teams report); GPU-hours, unmonitored cost and
// average utilization over its resources; unallocated cost over its
// resources (the GPU time of its resources no task held, as the fleet's is
// over every resource, so the teams' add up to the fleet's); allocated idle
// cost over its tasks (as the fleet's is over every task); savings over its
// recommendations; unused commitments from its findings of that kind. Other
// charges (tax, credits) cannot be attributed to a team and are 0. r is not
// modified; the slice shares no slices with it.
func (r *Result) ForTeam(team string) *Result {
	if r == nil {
		return nil
	}
	ti := slices.IndexFunc(r.ByTeam, func(t TeamCost) bool { return strings.EqualFold(t.Team, team) })
	if ti < 0 {
		return nil
	}
	tc := r.ByTeam[ti]
	name := tc.Team
	out := &Result{
		Period:   r.Period,
		Currency: r.Currency,
		ByTeam:   []TeamCost{tc},
	}
	if tc.Budget != nil {
		b := *tc.Budget
		out.ByTeam[0].Budget = &b
	}

	own, other := out.takeResources(r, name)
	tasks := out.takeTeamRows(r, name)
	out.takeResourceRows(r, name, own)
	out.Pools = teamPools(r, name)
	for _, d := range r.TaskDaily {
		if tasks[d.Task] {
			out.TaskDaily = append(out.TaskDaily, d)
		}
	}
	out.GPUsByModel = modelUtil(out.ByResource)
	out.Watch = r.Watch.forTeam(name)
	out.Energy = r.Energy.forTeam(name)
	out.Advice = r.Advice.forTeam(name, own)
	out.Trend = r.Trend.forTeam(name)
	out.DataQuality = teamDataQuality(r.DataQuality, name, own, other)
	out.teamTotals(tc, r.DataQuality)
	return out
}

// takeResources copies the team's resources into out and returns the ids
// of the team's resources and of everyone else's (the warnings that name
// only the team's are its own).
func (out *Result) takeResources(r *Result, name string) (own, other map[string]bool) {
	own, other = map[string]bool{}, map[string]bool{}
	for _, rc := range r.ByResource {
		if rc.Team == name {
			own[rc.ResourceID] = true
			out.ByResource = append(out.ByResource, rc)
		} else if rc.ResourceID != "" {
			other[rc.ResourceID] = true
		}
	}
	return own, other
}

// takeTeamRows copies the rows that carry a team (tasks, daily costs) and
// returns the team's task names, which its tasks' daily rows follow.
func (out *Result) takeTeamRows(r *Result, name string) map[string]bool {
	tasks := map[string]bool{}
	for _, t := range r.Tasks {
		if t.Team == name {
			tasks[t.Task] = true
			out.Tasks = append(out.Tasks, t)
		}
	}
	for _, d := range r.Daily {
		if d.Team == name {
			out.Daily = append(out.Daily, d)
		}
	}
	return tasks
}

// takeResourceRows copies the rows that belong to the team through its
// resources: recommendations, idle spans, hourly utilization, and the
// findings naming the team or, naming none, one of its resources.
func (out *Result) takeResourceRows(r *Result, name string, own map[string]bool) {
	for _, rec := range r.Recommendations {
		if own[rec.ResourceID] {
			out.Recommendations = append(out.Recommendations, rec)
		}
	}
	for _, s := range r.IdleSpans {
		if own[s.ResourceID] {
			out.IdleSpans = append(out.IdleSpans, s)
		}
	}
	for _, f := range r.Findings {
		if f.Team == name || (f.Team == "" && own[f.ResourceID]) {
			out.Findings = append(out.Findings, f)
		}
	}
	for _, h := range r.HourlyUtil {
		if own[h.ResourceID] {
			out.HourlyUtil = append(out.HourlyUtil, h)
		}
	}
}

// teamDataQuality is the data-quality box of a team's slice: its sources,
// the fleet's counts, and the warnings naming only its resources.
func teamDataQuality(dq DataQuality, name string, own, other map[string]bool) DataQuality {
	out := DataQuality{
		Sources:        teamSources(dq.Sources, name),
		RowsRejected:   dq.RowsRejected,
		SamplesDropped: slices.Clone(dq.SamplesDropped),
		Clipped:        dq.Clipped,
		ExchangeRates:  slices.Clone(dq.ExchangeRates),
	}
	for _, w := range dq.Warnings {
		if w == dq.Clipped || mentionsOnly(w, own, other) {
			out.Warnings = append(out.Warnings, w)
		}
	}
	return out
}

// teamTotals fills the slice's totals (see ForTeam) from its ByTeam row
// and the rows already taken, and marks its coverage.
func (out *Result) teamTotals(tc TeamCost, dq DataQuality) {
	t := &out.Totals
	t.Cost, t.GPUCost, t.IdleCost, t.PreviousCost = tc.Cost, tc.GPUCost, tc.IdleCost, tc.PreviousCost
	t.NonGPUCost = tc.Cost - tc.GPUCost
	var monitored, utilHours float64
	for _, rc := range out.ByResource {
		t.GPUHoursBilled += rc.GPUHoursBilled
		t.GPUHoursActive += rc.GPUHoursActive
		t.GPUHoursIdle += rc.GPUHoursIdle
		t.GPUHoursUnmonitored += rc.GPUHoursUnmonitored
		t.UnmonitoredCost += rc.UnmonitoredCost
		t.UnallocatedCost += rc.UnallocatedCost
		m := rc.GPUHoursActive + rc.GPUHoursIdle
		monitored += m
		utilHours += rc.AvgUtilization * m
	}
	if monitored > 0 {
		t.AvgGPUUtilization = utilHours / monitored
	}
	if t.GPUHoursBilled > 0 {
		out.DataQuality.UnmonitoredShare = t.GPUHoursUnmonitored / t.GPUHoursBilled
	}
	// The team's own coverage decides whether its slice is incomplete.
	markCoverage(&out.DataQuality, *t, dq.MinCoverage, hasTelemetry(dq.Sources))
	for _, tk := range out.Tasks {
		t.AllocatedIdleCost += tk.IdleCost
	}
	for _, rec := range out.Recommendations {
		t.MonthlySavings += rec.MonthlySavings
	}
	for _, f := range out.Findings {
		if f.Kind == FindingUnusedCommit {
			t.UnusedCommitmentCost += f.Money
		}
	}
}

// teamPools keeps the pools whose every resource belongs to team.
func teamPools(r *Result, team string) []Pool {
	var out []Pool
	for _, p := range r.Pools {
		n, mine := 0, 0
		for _, rc := range r.ByResource {
			if rc.Provider == p.Provider && rc.GPUModel == p.GPUModel {
				n++
				if rc.Team == team {
					mine++
				}
			}
		}
		if n > 0 && mine == n {
			out = append(out, p)
		}
	}
	return out
}

// modelUtil is GPUsByModel over a set of resources: billed GPU-hours per model
// and the utilization averaged over monitored GPU-hours, in model order.
func modelUtil(rs []ResourceCost) []ModelUtil {
	type acc struct{ billed, monitored, util float64 }
	by := map[string]*acc{}
	for _, rc := range rs {
		if rc.GPUModel == "" {
			continue
		}
		a := by[rc.GPUModel]
		if a == nil {
			a = &acc{}
			by[rc.GPUModel] = a
		}
		m := rc.GPUHoursActive + rc.GPUHoursIdle
		a.billed += rc.GPUHoursBilled
		a.monitored += m
		a.util += rc.AvgUtilization * m
	}
	var out []ModelUtil
	for _, model := range slices.Sorted(maps.Keys(by)) {
		a := by[model]
		if a.billed <= 0 {
			continue
		}
		mu := ModelUtil{GPUModel: model, GPUHours: a.billed, GPUHoursMonitored: a.monitored}
		if a.monitored > 0 {
			mu.AvgUtilization = a.util / a.monitored
		}
		out = append(out, mu)
	}
	return out
}

// mentionsOnly reports whether a warning may go into a team's report: it
// names one of the team's resources, or none of anyone else's.
func mentionsOnly(w string, own, other map[string]bool) bool {
	for id := range own {
		if id != "" && strings.Contains(w, id) {
			return true
		}
	}
	for id := range other {
		if strings.Contains(w, id) {
			return false
		}
	}
	return true
}

// teamSources are the sources of a team's data-quality box: every ok one, and
// those not ok that touch the team. Another team's stale exporter is not the
// team's problem: shown to every team, it said "data incomplete" beside
// "coverage 100 %" on every team's email, page, workbook and digest.
func teamSources(sources []SourceStatus, team string) []SourceStatus {
	var out []SourceStatus
	for _, s := range sources {
		if s.Status == "ok" || s.Status == "" || s.Touches(team) {
			s.GPUs, s.Teams = slices.Clone(s.GPUs), slices.Clone(s.Teams)
			out = append(out, s)
		}
	}
	return out
}
