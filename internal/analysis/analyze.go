package analysis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
)

const unassigned = "unassigned"

// UnknownGPUTag is the tag parsers set on a line whose SKU or instance type
// looks like a GPU the catalog does not know, so data quality can name it.
const UnknownGPUTag = "finops_unknown_gpu"

// Analyze computes the report model for in.Window (and recommendations over
// in.Lookback), the trends against the previous window and the month to date,
// and the findings. The same input always gives the same result, in the same
// order. The caller loads data from the earliest of the lookback start, the
// previous window's start (PreviousWindow) and the month's start (MonthWindow).
func Analyze(in *Input) (*Result, error) { return AnalyzeContext(context.Background(), in) }

// AnalyzeContext is Analyze that stops with ctx's error once ctx is done: a
// year of minutes over a fleet takes seconds, and a signal must not wait
// for them. It looks at ctx between resources, which take milliseconds each.
//
// A window far longer than the data is first clipped to the days the data
// spans (clipToData); Result.Period is then the clipped window and
// DataQuality.Clipped says so.
func AnalyzeContext(ctx context.Context, in *Input) (*Result, error) {
	p := withDefaults(in.Params)
	orig := in
	in, clipped := clipToData(in, p.Location)
	win, err := newWindowAnalysis(in)
	if err != nil {
		return nil, err
	}
	var prev, month *windowAnalysis
	var hist *history
	if !in.SkipTrends {
		if prev, month, err = trendAnalyses(in, p); err != nil {
			return nil, err
		}
		if hist, err = newHistory(orig, in.Window, p); err != nil {
			return nil, err
		}
	}
	resources, err := walkLines(ctx, in, win.a.conv, append([]*windowAnalysis{win, prev, month}, hist.analyses()...)...)
	if err != nil {
		return nil, err
	}
	res, err := win.finish(ctx, resources)
	if err != nil {
		return nil, err
	}
	win.allocate()
	if clipped != "" {
		res.DataQuality.Clipped = clipped
		res.DataQuality.Warnings = append([]string{clipped}, res.DataQuality.Warnings...)
	}
	if prev != nil {
		pres, err := prev.finish(ctx, resources)
		if err != nil {
			return nil, err
		}
		applyPrevious(res, pres)
	}
	if month != nil {
		mres, err := month.finish(ctx, resources)
		if err != nil {
			return nil, err
		}
		applyMonth(res, mres, month.a.in.Window, p.Location)
	}
	if res.Trend, err = hist.finish(ctx, resources, res, p); err != nil {
		return nil, err
	}
	if err := applyAdvice(ctx, res, in); err != nil {
		return nil, err
	}
	res.Findings = findings(res, p)
	res.DataQuality.Warnings = append(res.DataQuality.Warnings, suspectPrices(in.Prices)...)
	return res, nil
}

// trendAnalyses are the analyses of the previous window and of the month to
// date (nil when the window starts a month at midnight: no month before it),
// whose results give res's comparisons (applyPrevious, applyMonth). They give
// costs only, and no cost depends on utilization: a minute's cost is its
// line's, and who pays it is decided by the tasks holding its GPU, whatever
// the GPU did. So they match the GPUs to resources from in.GPUs as the
// window's analysis does but never read a GPU's minutes (costsOnly): with
// outlines, a fleet's minutes are read once, by the window's analysis, not
// three times.
func trendAnalyses(in *Input, p Params) (prev, month *windowAnalysis, err error) {
	totals := func(w Window) (*windowAnalysis, error) {
		return newWindowAnalysis(&Input{Window: w, Lookback: w, Lines: in.Lines, LineStream: in.LineStream,
			GPUs: in.GPUs, TaskRuns: in.TaskRuns, Resources: in.Resources, Teams: in.Teams,
			Params: withoutGroups(in.Params), SkipHourly: true, costsOnly: true})
	}
	if prev, err = totals(PreviousWindow(in.Window)); err != nil {
		return nil, nil, err
	}
	if mw := MonthWindow(in.Window, p.Location); mw.End.After(mw.Start) {
		if month, err = totals(mw); err != nil {
			return nil, nil, err
		}
	}
	return prev, month, nil
}

// suspectPrices flags catalog rows whose spot price is not below on-demand:
// spot capacity that costs as much is almost always a typo or a stale row.
func suspectPrices(prices []Price) []string {
	hourly := map[string]Price{}
	for _, p := range prices {
		if p.Mode == finops.ModeHourly {
			hourly[strings.ToLower(p.Provider+"\x00"+p.GPUModel+"\x00"+p.Currency)] = p
		}
	}
	var out []string
	for _, p := range prices {
		h, ok := hourly[strings.ToLower(p.Provider+"\x00"+p.GPUModel+"\x00"+p.Currency)]
		if p.Mode == finops.ModeSpot && ok && p.Price >= h.Price {
			out = append(out, fmt.Sprintf("price catalog: %s %s spot %g ≥ on-demand %g %s (as of %s): suspect, check the row",
				p.Provider, p.GPUModel, p.Price, h.Price, p.Currency, p.AsOf))
		}
	}
	return out
}

// windowAnalysis is the analysis of one window, split around the walk over
// the lines so that the window and its trends share one: a streamed year is
// read from the store once, not three times. newWindowAnalysis sets it up,
// add takes each line's share of the window's totals, and finish analyses
// the resources the walk grouped.
type windowAnalysis struct {
	a    *analyzer
	sums lineSums
}

func newWindowAnalysis(in *Input) (*windowAnalysis, error) {
	p := withDefaults(in.Params)
	if !in.Window.End.After(in.Window.Start) {
		return nil, errors.New("analysis: empty report window")
	}
	lbStart := in.Window.Start
	if !in.Lookback.Start.IsZero() {
		lbStart = minTime(in.Lookback.Start, lbStart)
	}
	conv, err := newConverter(p, lineCurrencies(in))
	if err != nil {
		return nil, err
	}

	a := &analyzer{
		in: in, p: p, conv: conv,
		tl:       newTimeline(lbStart, in.Window.End),
		teams:    map[string]*TeamCost{},
		tasks:    map[string]*taskAcc{},
		daily:    map[dailyKey]*float64{},
		teamTag:  map[string]string{},
		models:   map[string]*usage{},
		taskDays: map[taskDayKey]*TaskDay{},
	}
	a.win = [2]int{a.tl.index(in.Window.Start), a.tl.index(in.Window.End)}
	a.lb = [2]int{a.tl.index(lbStart), a.tl.index(in.Window.End)}
	a.days = localDays(in.Window, p.Location)
	a.winDay = make([]uint16, a.win[1]-a.win[0])
	for i := range a.winDay {
		a.winDay[i] = uint16(a.searchDay(a.tl.time(a.win[0] + i)))
	}
	a.cfg = newResourceConfig(in.Resources)
	for _, t := range in.Teams {
		a.teamTag[strings.ToLower(t.Name)] = t.Name
		if t.Tag != "" {
			a.teamTag[strings.ToLower(t.Tag)] = t.Name
		}
	}
	a.res = &Result{
		Period: Period{Start: in.Window.Start, End: in.Window.End, TimeZone: p.Location.String(),
			Label: in.Window.Label},
		Currency: conv.currency,
	}
	return &windowAnalysis{a: a}, nil
}

func (w *windowAnalysis) add(l *finops.BillingLine) { w.a.lineTotal(l, &w.sums) }

// walkLines walks in's lines once (held or streamed), giving each to every
// window's analysis (nil: none) and to one grouper, whose resources are the
// same for every window: what it keeps of a line (its charge, the latest
// name, the last team tag) does not depend on the window. Its conv is the
// window's; the trends' are made from the same parameters and currencies.
func walkLines(ctx context.Context, in *Input, conv *converter, ws ...*windowAnalysis) ([]*gpuResource, error) {
	ws = slices.DeleteFunc(ws, func(w *windowAnalysis) bool { return w == nil })
	group := newResourceGrouper(conv, false)
	if err := eachLine(ctx, in, conv, func(l *finops.BillingLine) {
		for _, w := range ws {
			w.add(l)
		}
		group.add(l)
	}); err != nil {
		return nil, err
	}
	return group.resources(), nil
}

// finish analyses the window from its line totals and the resources the walk
// grouped. The analysis fills in a resource's GPUs, team and tasks, so it
// works on copies: the resources serve every window, and their charges,
// which it only reads, are shared rather than copied.
func (w *windowAnalysis) finish(ctx context.Context, grouped []*gpuResource) (*Result, error) {
	a, in, res := w.a, w.a.in, w.a.res
	a.lineTotals(&w.sums)

	resources := make([]*gpuResource, len(grouped))
	for i, r := range grouped {
		c := *r
		resources[i] = &c
	}
	unmatched, overfull, ambiguous := matchGPUs(resources, a.cfg, in.GPUs)
	for _, k := range overfull {
		a.warn("%s: more GPUs report telemetry than the bill says it has; extra GPUs were left unmatched", k)
	}
	if n := CountGPUs(unmatched); n.Slices > 0 {
		// A slice left over is not a spare card: say what it is.
		a.warn("%s of telemetry match no billed resource: a slice is part of a card, never counted as one; map the card's host under resources in the config", n)
	}
	for _, h := range ambiguous {
		a.warn("GPU host %s could belong to several billed resources: map it under resources in the config", h)
	}
	shared := a.cfg.shared(resources)
	for _, id := range sortedKeys(shared) {
		a.warn("resources entry %q names several billed resources (%s): give its full id in the config", id,
			strings.Join(shared[id], ", "))
	}
	a.resourceNames = map[string]bool{}
	for _, r := range resources {
		for _, n := range resourceAliases(r.key, r.name) {
			a.resourceNames[n] = true
		}
	}
	a.gpuOwner, a.taskGPUWarned = map[string]*gpuResource{}, map[string]bool{}
	for _, r := range resources {
		for _, s := range r.slots {
			for _, k := range s.keys() {
				a.gpuOwner[k] = r
			}
		}
	}
	a.runs = groupRuns(in.TaskRuns)
	a.watch = a.newWatchAcc()
	// The next resource's minutes are read (SQLite) while this one is
	// analysed: the two took about as long as each other at 10,000 GPUs,
	// one after the other on one core. At most two resources' minutes are
	// held at once.
	var next chan error
	defer func() {
		if next != nil {
			<-next // nothing is left writing to a slot once Analyze returns
		}
	}()
	loadAsync := func(r *gpuResource) chan error {
		done := make(chan error, 1)
		go func() { done <- a.load(ctx, r.slots) }()
		return done
	}
	if len(resources) > 0 {
		next = loadAsync(resources[0])
	}
	for i, r := range resources {
		err := <-next
		next = nil
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		if i+1 < len(resources) {
			next = loadAsync(resources[i+1])
		}
		a.resource(r)
	}
	for _, s := range unmatched {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a.warn("GPU %s on host %q has telemetry but matches no billed resource: map it under resources in the config", s.Key, s.Host)
		res.DataQuality.UnmatchedGPUs = append(res.DataQuality.UnmatchedGPUs, UnmatchedGPU{GPU: s.Key, Host: s.Host, Model: s.Model, Slice: sliceLabel(s.Slice)})
		sl := &slot{series: s}
		if err := a.load(ctx, []*slot{sl}); err != nil {
			return nil, err
		}
		sl.grid = a.grid(sl)
		a.hourly(sl, "")
		a.spare = append(a.spare, sl.grid)
	}
	for _, k := range sortedKeys(a.runs) {
		if !a.usedRuns[k] && !a.allByGPU(k) {
			a.warn("tasks on resource %q match no billed GPU resource in this period", k)
		}
	}
	a.finish()
	a.finishWatch()
	a.finishEnergy()
	return res, nil
}

type analyzer struct {
	in   *Input
	p    Params
	conv *converter
	tl   timeline
	win  [2]int // grid index range of the report window
	lb   [2]int // grid index range of the lookback
	days []time.Time

	cfg     *resourceConfig
	teamTag map[string]string // lower-case team name or tag → team name
	teams   map[string]*TeamCost
	tasks   map[string]*taskAcc
	daily   map[dailyKey]*float64
	// the last cell dailyCell returned, and the window minute → local day
	lastDailyKey dailyKey
	lastDaily    *float64
	winDay       []uint16
	models       map[string]*usage
	runs         map[string][]*finops.TaskRun
	pools        map[string]*poolAcc
	taskDays     map[taskDayKey]*TaskDay
	usedRuns     map[string]bool
	// Task runs taken by a resource through the GPUs they name (runs from
	// Prometheus labels name their host, not the billed resource).
	gpuRuns       map[*finops.TaskRun]bool
	resourceNames map[string]bool         // lower-case ids and names of the GPU resources
	gpuOwner      map[string]*gpuResource // GPU key and uuid → the resource its telemetry serves
	taskGPUWarned map[string]bool         // task + GPU already warned about (runSlots)
	spare         []gpuGrid               // grids of finished resources, for the next (spareGrid)
	watch         *watchAcc               // nil when the watch did nothing in the window
	energy        *energyState            // energy.go; nil until a resource is reached

	total         usage // window, all GPU resources
	unallocated   float64
	allocatedIdle float64
	res           *Result
}

type taskDayKey struct {
	day  int
	task string
}

type dailyKey struct {
	day         int
	team, model string
}

func withDefaults(p Params) Params {
	d := DefaultParams()
	if p.Location == nil {
		p.Location = d.Location
	}
	if p.IdleThreshold == 0 {
		p.IdleThreshold = d.IdleThreshold
	}
	if p.IdleMinSpan == 0 {
		p.IdleMinSpan = d.IdleMinSpan
	}
	if p.SpotInflation == 0 {
		p.SpotInflation = d.SpotInflation
	}
	if p.TargetBandHigh == 0 {
		p.TargetBandLow, p.TargetBandHigh = d.TargetBandLow, d.TargetBandHigh
	}
	if p.ForgottenSpan == 0 {
		p.ForgottenSpan = d.ForgottenSpan
	}
	if p.SaturatedSpan == 0 {
		p.SaturatedSpan = d.SaturatedSpan
	}
	if p.SpikePct == 0 {
		p.SpikePct = d.SpikePct
	}
	if p.StaleAfter <= 0 {
		p.StaleAfter = DefaultStaleAfter
	}
	return p
}

func (a *analyzer) warn(format string, args ...any) {
	a.res.DataQuality.Warnings = append(a.res.DataQuality.Warnings, fmt.Sprintf(format, args...))
}

// team resolves a team name from a tag value or a configured name.
func (a *analyzer) team(v string) string {
	if v == "" {
		return unassigned
	}
	if t, ok := a.teamTag[strings.ToLower(v)]; ok {
		return t
	}
	return v
}

func (a *analyzer) teamCost(name string) *TeamCost {
	t := a.teams[name]
	if t == nil {
		t = &TeamCost{Team: name}
		a.teams[name] = t
	}
	return t
}

// lineSums are the window's totals over the lines, added up exactly.
type lineSums struct {
	cost, gpu, other, unused decimal.Decimal
	nullCost                 int
	unknownGPU               map[string]int
	groups                   groupSums // per GroupBy dimension and value (allocation.go)
}

// lineTotal adds one line's share of the window to the totals, exactly:
// cost × (overlap / charge period), in decimals. GPU usage lines' team split
// happens minute by minute in resource(); all other lines go to the team of
// their resource or tag here.
func (a *analyzer) lineTotal(l *finops.BillingLine, s *lineSums) {
	if u := l.Tags[UnknownGPUTag]; u != "" {
		if s.unknownGPU == nil {
			s.unknownGPU = map[string]int{}
		}
		s.unknownGPU[u]++
	}
	c, ok := l.Cost()
	if !ok {
		s.nullCost++
		return
	}
	share := LineShare(l.ChargeStart, l.ChargeEnd, a.in.Window.Start, a.in.Window.End)
	if share.IsZero() {
		return
	}
	v := a.conv.amount(c, l.Currency).Mul(share)
	s.cost = s.cost.Add(v)
	if len(a.p.GroupBy) > 0 {
		if s.groups == nil {
			s.groups = groupSums{}
		}
		s.groups.addLine(a.p.GroupBy, l, v)
	}
	switch {
	case l.IsGPUUsage():
		s.gpu = s.gpu.Add(v)
		return
	case l.CommitmentStatus == "unused":
		s.unused = s.unused.Add(v)
	case l.ChargeCategory != finops.ChargeUsage:
		s.other = s.other.Add(v)
	}
	team := a.lineTeam(l)
	f := v.InexactFloat64()
	a.teamCost(team).Cost += f
	a.spreadDaily(l.ChargeStart, l.ChargeEnd, team, "", f)
}

// lineTotals sets the result's totals from the sums of every line, and warns
// about the lines that added nothing.
func (a *analyzer) lineTotals(s *lineSums) {
	for _, u := range sortedKeys(s.unknownGPU) {
		a.warn("%d billing lines look like GPU usage (%q) but name no GPU finops knows: they count as non-GPU cost; add the type under instance_types in the config", s.unknownGPU[u], u)
	}
	if s.nullCost > 0 {
		a.warn("%d billing lines have neither EffectiveCost nor BilledCost and add nothing", s.nullCost)
	}
	t := &a.res.Totals
	t.Cost, t.GPUCost = s.cost.InexactFloat64(), s.gpu.InexactFloat64()
	t.NonGPUCost = s.cost.Sub(s.gpu).InexactFloat64()
	t.OtherCharges, t.UnusedCommitmentCost = s.other.InexactFloat64(), s.unused.InexactFloat64()
}

// lineTeam is the team of a non-GPU line: its configured resource's team,
// else its "team" tag, else unassigned.
func (a *analyzer) lineTeam(l *finops.BillingLine) string {
	if c, ok := a.cfg.lookup(resourceKey(l), l.ResourceName); ok && c.Team != "" {
		return a.team(c.Team)
	}
	return a.team(l.Tags["team"])
}

// LineShare is the fraction of a line's charge period [s, e) inside the
// window [ws, we) (metrics.md: a line's cost is spread uniformly over its
// period), exact to whole seconds; a zero-length line is an instant. The
// workbook's Billing lines sheet shows the same share, so it reconciles.
func LineShare(s, e, ws, we time.Time) decimal.Decimal {
	if !e.After(s) {
		// A zero-length line is an instant: it counts fully when inside the window.
		if !s.Before(ws) && s.Before(we) {
			return decimal.NewFromInt(1)
		}
		return decimal.Zero
	}
	os, oe := maxTime(s, ws), minTime(e, we)
	if !oe.After(os) {
		return decimal.Zero
	}
	if !os.After(s) && !oe.Before(e) {
		return decimal.NewFromInt(1)
	}
	return decimal.NewFromInt(int64(oe.Sub(os)/time.Second)).
		DivRound(decimal.NewFromInt(int64(e.Sub(s)/time.Second)), 18)
}

// spreadDaily spreads v uniformly over [s, e) onto the window's local days.
func (a *analyzer) spreadDaily(s, e time.Time, team, model string, v float64) {
	total := e.Sub(s).Seconds()
	for d := range a.days[:len(a.days)-1] {
		ds, de := a.days[d], a.days[d+1]
		if total <= 0 {
			if !s.Before(ds) && s.Before(de) {
				*a.dailyCell(d, team, model) += v
			}
			continue
		}
		os, oe := maxTime(s, ds), minTime(e, de)
		if oe.After(os) {
			*a.dailyCell(d, team, model) += v * oe.Sub(os).Seconds() / total
		}
	}
}

// localDays returns the local midnights from the window start to its end
// (inclusive of the end bound, which may fall mid-day).
func localDays(w Window, loc *time.Location) []time.Time {
	d := localMidnight(w.Start, loc).In(loc)
	out := []time.Time{w.Start}
	for {
		d = d.AddDate(0, 0, 1)
		if !d.Before(w.End) {
			break
		}
		out = append(out, d.UTC())
	}
	return append(out, w.End)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sortResults puts every list in a stable, meaningful order.
func sortResults(r *Result) {
	sort.SliceStable(r.ByTeam, func(i, j int) bool {
		if r.ByTeam[i].Cost != r.ByTeam[j].Cost {
			return r.ByTeam[i].Cost > r.ByTeam[j].Cost
		}
		return r.ByTeam[i].Team < r.ByTeam[j].Team
	})
	sort.SliceStable(r.ByResource, func(i, j int) bool {
		if r.ByResource[i].Cost != r.ByResource[j].Cost {
			return r.ByResource[i].Cost > r.ByResource[j].Cost
		}
		return r.ByResource[i].ResourceID < r.ByResource[j].ResourceID
	})
	sort.SliceStable(r.Tasks, func(i, j int) bool {
		if r.Tasks[i].Cost != r.Tasks[j].Cost {
			return r.Tasks[i].Cost > r.Tasks[j].Cost
		}
		return r.Tasks[i].Task < r.Tasks[j].Task
	})
	sort.SliceStable(r.Recommendations, func(i, j int) bool {
		if r.Recommendations[i].MonthlySavings != r.Recommendations[j].MonthlySavings {
			return r.Recommendations[i].MonthlySavings > r.Recommendations[j].MonthlySavings
		}
		return r.Recommendations[i].ResourceID < r.Recommendations[j].ResourceID
	})
	sort.SliceStable(r.IdleSpans, func(i, j int) bool {
		if r.IdleSpans[i].Cost != r.IdleSpans[j].Cost {
			return r.IdleSpans[i].Cost > r.IdleSpans[j].Cost
		}
		if !r.IdleSpans[i].Start.Equal(r.IdleSpans[j].Start) {
			return r.IdleSpans[i].Start.Before(r.IdleSpans[j].Start)
		}
		return r.IdleSpans[i].GPU < r.IdleSpans[j].GPU
	})
}
