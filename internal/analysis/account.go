package analysis

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops"
)

// taskAcc accumulates one task over the window.
type taskAcc struct {
	TaskCost
	gpuMinutes       float64
	monitoredMinutes float64 // of gpuMinutes, those telemetry saw (its idle cost's coverage)
}

// groupRuns indexes task runs by lower-case resource.
func groupRuns(runs []finops.TaskRun) map[string][]*finops.TaskRun {
	out := map[string][]*finops.TaskRun{}
	for i := range runs {
		k := strings.ToLower(runs[i].Resource)
		out[k] = append(out[k], &runs[i])
	}
	return out
}

// resource walks one GPU resource minute by minute over the lookback: the
// window's numbers, task and team attribution, idle spans, and the lookback
// usage the recommendation needs.
func (a *analyzer) resource(r *gpuResource) {
	for _, s := range r.slots {
		s.grid = a.grid(s)
	}
	rate, slots := r.rates(a.tl)
	a.resolveResource(r)

	runs := a.resourceRuns(r)
	held := a.holders(r, runs, slots) // [slot][window minute] number of runs holding it

	w := a.walkMinutes(r, rate, slots, held)
	wu, lu, bands, unallocated, satMax := w.wu, w.lu, w.bands, w.unallocated, w.satMax
	a.attributeRuns(r, runs, held, rate, slots)
	a.resourceEnergy(r, runs, held, slots)
	a.idleSpans(r, rate, slots)
	for _, s := range r.slots {
		a.hourly(s, r.key)
	}

	a.res.ByResource = append(a.res.ByResource, ResourceCost{
		ResourceID: r.key, ResourceName: r.name, Provider: r.provider, GPUModel: r.model, GPUCount: r.gpuCount,
		Pricing: r.mode, Team: r.team, Cost: wu.cost,
		GPUHoursBilled: wu.billed / 60, GPUHoursActive: wu.active / 60, GPUHoursIdle: wu.idle / 60,
		GPUHoursUnmonitored: wu.unmonitored / 60, IdleCost: wu.idleCost, UnmonitoredCost: wu.unmonitoredCost,
		UnallocatedCost: unallocated, AvgUtilization: wu.avgUtil(), Bands: bands, SaturatedHours: float64(satMax) / 60,
	})
	a.telemetryWarnings(r, &wu, &lu)
	days, weeks := busyBlocks(w.busyDays)
	a.res.Recommendations = append(a.res.Recommendations, a.recommend(r, &lu, days, weeks))
	a.watchResource(r)
	// The grids are this resource's alone: five bytes per GPU-minute of the
	// lookback (nine with power), which for a fleet is most of the analysis's
	// memory if every resource's stayed until the end. The next resource lays its GPUs on
	// them: made anew for each GPU they were as much garbage as a quarter's
	// input, and the collector let the heap grow by that much.
	for _, s := range r.slots {
		a.spare = append(a.spare, s.grid)
		s.grid, s.loaded, s.partsLoaded = gpuGrid{}, nil, nil
	}
}

// resourceWalk is what a resource's minute-by-minute walk adds up: the
// window's usage (wu) and the lookback's (lu), utilization bands, the
// window's GPU-minutes no task held at their rate, the longest saturated
// run, and the lookback's days with any active minute.
type resourceWalk struct {
	wu, lu      usage
	bands       UtilBands
	unallocated float64
	satMax      int
	busyDays    []bool
}

// walkMinutes walks each minute of the lookback and each billed slot in
// it, adding the minute to the lookback's usage, the pool's busy hours
// and, in the window, to the resource's, its model's and the fleet's
// usage and the owner's unallocated cost. One loop for all of them: it
// runs once per GPU-minute, the analysis' hottest path.
func (a *analyzer) walkMinutes(r *gpuResource, rate []float64, slots []uint16, held [][]uint8) resourceWalk {
	w0, w1 := a.win[0], a.win[1]
	w := resourceWalk{wu: newUsage(), lu: newUsage()}
	model := a.models[r.model]
	if model == nil {
		u := newUsage()
		model = &u
		a.models[r.model] = model
	}
	owner := a.teamCost(r.team)
	pool := a.pool(r)
	w.busyDays = make([]bool, (a.lb[1]-a.lb[0]+minutesPerDay-1)/minutesPerDay)
	// With k of n GPUs reporting, the k stand for all n in what the resource
	// needs (metrics.md §Partial telemetry); the silent GPUs' minutes stay
	// unmonitored in the report's hours.
	busyScale := 1.0
	if k := len(r.slots); k > 0 && k < r.gpuCount {
		busyScale = float64(r.gpuCount) / float64(k)
	}
	satRun := make([]int, r.gpuCount) // current run of saturated minutes per slot
	for t := a.lb[0]; t < a.lb[1]; t++ {
		n := int(slots[t])
		inWin := t >= w0 && t < w1
		if inWin && n > 0 {
			r.billedEnd = t + 1 // stale.go: how long into the window it is billed
		}
		for s := 0; s < n; s++ {
			class, util := unmonitored, float32(0)
			if s < len(r.slots) {
				class, util = r.slots[s].grid.class[t], r.slots[s].grid.util[t]
			}
			w.lu.add(t, class, util, rate[t])
			if pool.first < 0 || t < pool.first {
				pool.first = t
			}
			if class == active {
				pool.busy[(t-a.lb[0])/60] += busyScale / 60
				w.busyDays[(t-a.lb[0])/minutesPerDay] = true
			}
			if !inWin {
				continue
			}
			w.wu.add(t, class, util, rate[t])
			model.add(t, class, util, rate[t])
			a.total.add(t, class, util, rate[t])
			if class != unmonitored {
				w.bands.add(float64(util), a.p.TargetBandLow, a.p.TargetBandHigh)
			}
			if class != unmonitored && float64(util) > a.p.TargetBandHigh {
				satRun[s]++
				w.satMax = max(w.satMax, satRun[s])
			} else {
				satRun[s] = 0
			}
			if held[s][t-w0] == 0 {
				a.unallocated += rate[t]
				w.unallocated += rate[t]
				owner.Cost += rate[t]
				owner.GPUCost += rate[t]
				if class == idle {
					owner.IdleCost += rate[t]
				}
				*a.dailyCell(a.dayOf(t), r.team, r.model) += rate[t]
			}
		}
	}
	return w
}

// telemetryWarnings says what the resource's telemetry leaves out: all of
// it, some of its GPUs, or whole cards seen only as slices.
func (a *analyzer) telemetryWarnings(r *gpuResource, wu, lu *usage) {
	if len(r.slots) == 0 && wu.billed > 0 {
		a.warn("%s (%d×%s) has no utilization data: its GPU-hours are unmonitored", r.key, r.gpuCount, r.model)
		a.res.DataQuality.UnmatchedResources = append(a.res.DataQuality.UnmatchedResources, r.key)
	}
	if k := len(r.slots); k > 0 && k < r.gpuCount && lu.billed > 0 {
		a.warn("%s: %d GPUs billed, %d report telemetry: the other %d are unmonitored, and its advice assumes they work as the %d that report",
			r.key, r.gpuCount, k, r.gpuCount-k, k)
	}
	if n := r.slotCount(); n.Slices > 0 && !billsSlices(r.model) {
		// Each slot stands for one billed GPU: a slice in one stands for a
		// whole card. Said, so that no one reads its card-hours as a card's.
		// A card's MIG instances of known compute share are merged into the
		// card (cardSlots) and are not counted here; what is left is a
		// time-sliced vGPU, or an instance whose card or share is unknown.
		a.warn("%s: its telemetry is %s: each stands for one of its %d billed GPUs in its hours and advice; bill the slices (a slice's own model, docs/METRICS.md) or map the whole card",
			r.key, n, r.gpuCount)
	}
}

// busyBlocks counts the lookback's 24-hour and 7-day blocks with any
// active minute: a daily or weekly rental must cover each of them whole.
func busyBlocks(busyDays []bool) (days, weeks int) {
	seen := map[int]bool{}
	for d, busy := range busyDays {
		if busy {
			days++
			seen[d/7] = true
		}
	}
	return days, len(seen)
}

// load fetches the minutes of slots whose series are outlines.
func (a *analyzer) load(ctx context.Context, slots []*slot) error {
	if a.in.LoadSeries == nil || a.in.costsOnly {
		return nil
	}
	for _, s := range slots {
		if len(s.parts) > 0 {
			// A MIG-partitioned card: its instances hold the minutes.
			s.partsLoaded = make([]*finops.GPUSeries, len(s.parts))
			for i, p := range s.parts {
				g, err := a.in.LoadSeries(ctx, p)
				if err != nil {
					return err
				}
				s.partsLoaded[i] = &g
			}
			continue
		}
		g, err := a.in.LoadSeries(ctx, s.series)
		if err != nil {
			return err
		}
		s.loaded = &g
	}
	return nil
}

// grid lays a slot's minutes on the timeline, in a grid a finished resource
// left when there is one. An analysis of costs only lays none: every minute
// is unmonitored.
func (a *analyzer) grid(s *slot) gpuGrid {
	series := s.minutes()
	if a.in.costsOnly {
		series = &finops.GPUSeries{}
	} else if len(s.parts) > 0 {
		return cardGrid(a.tl, s, a.p.IdleThreshold, a.p.IdleMinSpan, a.spareGrid())
	}
	return buildGrid(a.tl, series, a.p.IdleThreshold, a.p.IdleMinSpan, a.spareGrid())
}

// spareGrid is a grid a finished resource left, or the zero gpuGrid.
func (a *analyzer) spareGrid() gpuGrid {
	n := len(a.spare)
	if n == 0 {
		return gpuGrid{}
	}
	g := a.spare[n-1]
	a.spare = a.spare[:n-1]
	return g
}

// resolveResource fills the team and interruptibility from the config, then
// from the latest line's "team" tag.
func (a *analyzer) resolveResource(r *gpuResource) {
	if c, ok := a.cfg.lookup(r.key, r.name); ok {
		r.interruptible = c.Interruptible
		if c.Team != "" {
			r.team = a.team(c.Team)
			return
		}
	}
	r.team = a.team(r.lastTeam)
}

// resourceRuns are the task runs on r that overlap the window.
func (a *analyzer) resourceRuns(r *gpuResource) []*finops.TaskRun {
	if a.usedRuns == nil {
		a.usedRuns = map[string]bool{}
	}
	var out []*finops.TaskRun
	for _, k := range resourceAliases(r.key, r.name) {
		if a.usedRuns[k] {
			continue
		}
		if runs, ok := a.runs[k]; ok {
			a.usedRuns[k] = true
			out = append(out, runs...)
		}
	}
	// Runs that name no billed resource but hold r's GPUs (task runs from
	// Prometheus labels name the GPU host and the GPUs).
	if len(r.slots) == 0 {
		return out
	}
	if a.gpuRuns == nil {
		a.gpuRuns = map[*finops.TaskRun]bool{}
	}
	mine := map[string]bool{}
	for _, s := range r.slots {
		for _, k := range s.keys() {
			mine[k] = true
		}
	}
	for _, k := range sortedKeys(a.runs) {
		if a.usedRuns[k] || a.resourceNames[k] {
			continue
		}
		for _, run := range a.runs[k] {
			if a.gpuRuns[run] {
				continue
			}
			for _, g := range run.GPUs {
				if mine[g] {
					a.gpuRuns[run] = true
					out = append(out, run)
					break
				}
			}
		}
	}
	return out
}

// allByGPU reports whether every run filed under resource key k was taken by
// a resource through its GPUs.
func (a *analyzer) allByGPU(k string) bool {
	for _, run := range a.runs[k] {
		if !a.gpuRuns[run] {
			return false
		}
	}
	return len(a.runs[k]) > 0
}

// runSlots are the slot indexes a run holds: the GPUs it names, else all.
// A named GPU that reports no telemetry takes one of the resource's silent
// slots (its cost is the same as any slot's; its idle time is unknown); a
// GPU that reports for another resource, or one that fits no slot, holds
// nothing here. Each of these is warned about once per task and GPU.
func (a *analyzer) runSlots(r *gpuResource, run *finops.TaskRun) []int {
	var out []int
	if len(run.GPUs) == 0 {
		for s := 0; s < r.gpuCount; s++ {
			out = append(out, s)
		}
		return out
	}
	for _, g := range run.GPUs {
		s := slices.IndexFunc(r.slots, func(sl *slot) bool {
			return slices.Contains(sl.keys(), g)
		})
		if s < 0 {
			s = a.silentSlot(r, run.Task, g)
		}
		if s >= 0 && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// silentSlot places a GPU a task names on r that is none of r's reporting
// GPUs, and warns once per task and GPU.
func (a *analyzer) silentSlot(r *gpuResource, task, gpu string) int {
	warn := func(format string, args ...any) {
		if k := task + "\x00" + gpu; !a.taskGPUWarned[k] {
			a.taskGPUWarned[k] = true
			a.warn(format, args...)
		}
	}
	if owner := a.gpuOwner[gpu]; owner != nil && owner != r {
		warn("task %s names GPU %s on %s, but that GPU reports for %s: its time there is not counted to the task",
			task, gpu, r.key, owner.key)
		return -1
	}
	if s, ok := r.silent[gpu]; ok {
		warn("task %s ran on GPU %s of %s, which reports no telemetry: its cost is counted, its idle time cannot be", task, gpu, r.key)
		return s
	}
	if s := len(r.slots) + len(r.silent); s < r.gpuCount {
		if r.silent == nil {
			r.silent = map[string]int{}
		}
		r.silent[gpu] = s
		warn("task %s ran on GPU %s of %s, which reports no telemetry: its cost is counted, its idle time cannot be", task, gpu, r.key)
		return s
	}
	warn("task %s names GPU %s on %s, which neither reports telemetry nor fits its %d billed GPUs: that GPU's time is not counted to the task",
		task, gpu, r.key, r.gpuCount)
	return -1
}

// runRange is the run's grid range clipped to the window.
func (a *analyzer) runRange(run *finops.TaskRun) (int, int) {
	s, e := a.tl.index(run.Start), a.tl.indexCeil(run.End)
	return max(s, a.win[0]), min(e, a.win[1])
}

func (a *analyzer) holders(r *gpuResource, runs []*finops.TaskRun, slots []uint16) [][]uint8 {
	w := a.win[1] - a.win[0]
	held := make([][]uint8, r.gpuCount)
	for s := range held {
		held[s] = make([]uint8, w)
	}
	for _, run := range runs {
		s0, s1 := a.runRange(run)
		for _, s := range a.runSlots(r, run) {
			for t := s0; t < s1; t++ {
				if s < int(slots[t]) && held[s][t-a.win[0]] < math.MaxUint8 {
					held[s][t-a.win[0]]++
				}
			}
		}
	}
	return held
}

// attributeRuns gives each run its share of the GPU-minutes it held: a
// GPU-minute held by two runs is split evenly between them.
func (a *analyzer) attributeRuns(r *gpuResource, runs []*finops.TaskRun, held [][]uint8, rate []float64, slots []uint16) {
	for _, run := range runs {
		s0, s1 := a.runRange(run)
		if s1 <= s0 {
			// A run of another week: the window's tasks are those that ran
			// in it, not every task the store holds.
			continue
		}
		acc := a.tasks[run.Task]
		if acc == nil {
			acc = &taskAcc{TaskCost: TaskCost{Task: run.Task, Kind: run.Kind, Unit: run.Unit}}
			acc.Team = r.team
			if run.Team != "" {
				acc.Team = a.team(run.Team)
			}
			a.tasks[run.Task] = acc
		}
		tc := a.teamCost(acc.Team)
		if run.Units != nil && run.End.After(run.Start) && s1 > s0 {
			// Units of a run that straddles the window count in proportion to its time inside.
			inside := a.tl.time(s1).Sub(a.tl.time(s0)).Seconds()
			acc.Units += run.Units.InexactFloat64() * math.Min(1, inside/run.End.Sub(run.Start).Seconds())
			// Per day too, in proportion to the run's time on each day.
			per := run.Units.InexactFloat64() / run.End.Sub(run.Start).Seconds()
			for d := range a.days[:len(a.days)-1] {
				os, oe := maxTime(run.Start, a.days[d]), minTime(run.End, a.days[d+1])
				if oe.After(os) {
					a.taskDay(d, run.Task).Units += per * oe.Sub(os).Seconds()
				}
			}
		}
		for _, s := range a.runSlots(r, run) {
			for t := s0; t < s1; t++ {
				if s >= int(slots[t]) {
					continue
				}
				c := float64(held[s][t-a.win[0]])
				share := rate[t] / c
				acc.Cost += share
				acc.gpuMinutes += 1 / c
				tc.Cost += share
				tc.GPUCost += share
				if s < len(r.slots) && r.slots[s].grid.class[t] != unmonitored {
					acc.monitoredMinutes += 1 / c
				}
				if s < len(r.slots) && r.slots[s].grid.class[t] == idle {
					acc.IdleCost += share
					tc.IdleCost += share
					a.allocatedIdle += share
				}
				d := a.dayOf(t)
				*a.dailyCell(d, acc.Team, r.model) += share
				a.taskDay(d, run.Task).Cost += share
			}
		}
	}
}

// taskDay is the accumulator of one task on one window day.
func (a *analyzer) taskDay(d int, task string) *TaskDay {
	k := taskDayKey{d, task}
	td := a.taskDays[k]
	if td == nil {
		td = &TaskDay{Day: a.days[d], Task: task}
		a.taskDays[k] = td
	}
	return td
}

// idleSpans records each GPU's idle runs inside the window, billed minutes only.
func (a *analyzer) idleSpans(r *gpuResource, rate []float64, slots []uint16) {
	for s, sl := range r.slots {
		start, cost := -1, 0.0
		flush := func(end int) {
			if start >= 0 {
				a.res.IdleSpans = append(a.res.IdleSpans, IdleSpan{ResourceID: r.key, GPU: sl.series.Key,
					Start: a.tl.time(start), End: a.tl.time(end), Hours: float64(end-start) / 60, Cost: cost})
			}
			start, cost = -1, 0
		}
		for t := a.win[0]; t < a.win[1]; t++ {
			if s < int(slots[t]) && sl.grid.class[t] == idle {
				if start < 0 {
					start = t
				}
				cost += rate[t]
				continue
			}
			flush(t)
		}
		flush(a.win[1])
	}
}

// hourly adds one GPU's mean utilization per window hour for the heatmap.
func (a *analyzer) hourly(s *slot, resource string) {
	if s.grid.util == nil || a.in.SkipHourly {
		return
	}
	gh := GPUHours{GPU: s.series.Key, ResourceID: resource, Start: a.tl.time(a.win[0]),
		Util: make([]float64, 0, (a.win[1]-a.win[0]+59)/60)}
	for h := a.win[0]; h < a.win[1]; h += 60 {
		sum, n := 0.0, 0
		for t := h; t < min(h+60, a.win[1]); t++ {
			if u := s.grid.util[t]; u == u {
				sum += float64(u)
				n++
			}
		}
		v := math.NaN()
		if n > 0 {
			v = sum / float64(n)
		}
		gh.Util = append(gh.Util, v)
	}
	a.res.HourlyUtil = append(a.res.HourlyUtil, gh)
}

// dayOf is the window's local-day index of grid minute t.
func (a *analyzer) dayOf(t int) int {
	if i := t - a.win[0]; i >= 0 && i < len(a.winDay) {
		return int(a.winDay[i])
	}
	return a.searchDay(a.tl.time(t))
}

// searchDay is the window's local-day index of instant at.
func (a *analyzer) searchDay(at time.Time) int {
	return sort.Search(len(a.days)-1, func(d int) bool { return a.days[d+1].After(at) })
}

// dailyCell is the daily cost cell of (day, team, model). Costs are added a
// GPU-minute at a time, and consecutive minutes nearly always go to the same
// cell: the last one is remembered rather than hashed again each minute.
func (a *analyzer) dailyCell(d int, team, model string) *float64 {
	k := dailyKey{d, team, model}
	if a.lastDaily != nil && a.lastDailyKey == k {
		return a.lastDaily
	}
	c := a.daily[k]
	if c == nil {
		c = new(float64)
		a.daily[k] = c
	}
	a.lastDailyKey, a.lastDaily = k, c
	return c
}

// finish turns the accumulators into the result's lists and totals.
func (a *analyzer) finish() {
	r := a.res
	t := &r.Totals
	t.GPUHoursBilled, t.GPUHoursActive = a.total.billed/60, a.total.active/60
	t.GPUHoursIdle, t.GPUHoursUnmonitored = a.total.idle/60, a.total.unmonitored/60
	t.IdleCost, t.UnmonitoredCost = a.total.idleCost, a.total.unmonitoredCost
	t.UnallocatedCost = a.unallocated
	t.AllocatedIdleCost = a.allocatedIdle
	t.AvgGPUUtilization = a.total.avgUtil()
	for _, rec := range r.Recommendations {
		t.MonthlySavings += rec.MonthlySavings
	}
	recs := map[string]*Recommendation{}
	for i := range r.Recommendations {
		recs[r.Recommendations[i].ResourceID] = &r.Recommendations[i]
	}
	r.Pools = a.poolResults(recs)

	for _, tm := range a.in.Teams {
		tc := a.teamCost(tm.Name)
		tc.Budget = tm.MonthlyBudget
	}
	for _, name := range sortedKeys(a.teams) {
		r.ByTeam = append(r.ByTeam, *a.teams[name])
	}
	for _, name := range sortedKeys(a.tasks) {
		acc := a.tasks[name]
		acc.GPUHours = acc.gpuMinutes / 60
		acc.GPUHoursMonitored = acc.monitoredMinutes / 60
		if acc.Units > 0 {
			acc.UnitCost = acc.Cost / acc.Units
		}
		r.Tasks = append(r.Tasks, acc.TaskCost)
	}
	keys := make([]dailyKey, 0, len(a.daily))
	for k := range a.daily {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].day != keys[j].day {
			return keys[i].day < keys[j].day
		}
		if keys[i].team != keys[j].team {
			return keys[i].team < keys[j].team
		}
		return keys[i].model < keys[j].model
	})
	for _, k := range keys {
		r.Daily = append(r.Daily, DailyCost{Day: a.days[k.day], Team: k.team, GPUModel: k.model, Cost: *a.daily[k]})
	}
	tdKeys := make([]taskDayKey, 0, len(a.taskDays))
	for k := range a.taskDays {
		tdKeys = append(tdKeys, k)
	}
	sort.Slice(tdKeys, func(i, j int) bool {
		if tdKeys[i].day != tdKeys[j].day {
			return tdKeys[i].day < tdKeys[j].day
		}
		return tdKeys[i].task < tdKeys[j].task
	})
	for _, k := range tdKeys {
		r.TaskDaily = append(r.TaskDaily, *a.taskDays[k])
	}
	for _, m := range sortedKeys(a.models) {
		u := a.models[m]
		if u.billed > 0 {
			r.GPUsByModel = append(r.GPUsByModel, ModelUtil{GPUModel: m, AvgUtilization: u.avgUtil(), GPUHours: u.billed / 60,
				GPUHoursMonitored: (u.billed - u.unmonitored) / 60})
		}
	}
	dq := &r.DataQuality
	dq.Sources = append(dq.Sources, a.in.Sources...)
	dq.RowsRejected = a.in.Rejected
	dq.SamplesDropped = slices.Clone(a.in.SamplesDropped)
	for _, d := range dq.SamplesDropped {
		dq.Warnings = append(dq.Warnings, fmt.Sprintf("%d utilization samples of %s dropped: outside 0–100 %% or not a number (never clamped)", d.Samples, d.Source))
	}
	dq.Warnings = append(dq.Warnings, a.in.IngestWarnings...)
	dq.UnmonitoredShare = a.total.unmonitoredShare()
	dq.ExchangeRates = a.conv.usedRates()
	for i := range r.ByTeam {
		for _, rc := range r.ByResource {
			if rc.Team == r.ByTeam[i].Team {
				r.ByTeam[i].GPUHoursBilled += rc.GPUHoursBilled
				r.ByTeam[i].GPUHoursMonitored += rc.GPUHoursBilled - rc.GPUHoursUnmonitored
			}
		}
	}
	a.markStale(dq)
	markCoverage(dq, r.Totals, a.in.Params.MinCoverage, hasTelemetry(dq.Sources))
	sortResults(r)
}
