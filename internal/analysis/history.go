package analysis

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/finops-oss/finops"
)

// history is the weekly history's analyses: one full per-window analysis per
// week, fed by the same walk over the lines as the report's window
// (walkLines), each finished in turn and dropped once its figures are taken.
// A week's figures are then a report of that week's by construction
// (docs/METRICS.md §Trend says why this over bucketing by week).
type history struct {
	asked  int
	absent []string
	weeks  []historyWeek
}

type historyWeek struct {
	label string
	win   Window
	wa    *windowAnalysis // nil: the report's own window, whose result is reused
}

// HistoryWeeks are the n whole weeks in loc ending at the last local Monday
// midnight at or before w.End, oldest first: for a report of an ISO week,
// that week and the n−1 before it.
func HistoryWeeks(w Window, n int, loc *time.Location) []Window {
	end := w.End.In(loc)
	monday := time.Date(end.Year(), end.Month(), end.Day()-(int(end.Weekday())+6)%7, 0, 0, 0, 0, loc)
	out := make([]Window, n)
	for k := range n {
		e := monday.AddDate(0, 0, -7*k)
		s := e.AddDate(0, 0, -7)
		y, wk := s.ISOWeek()
		out[n-1-k] = Window{Start: s.UTC(), End: e.UTC(), Label: fmt.Sprintf("%04d-W%02d", y, wk)}
	}
	return out
}

// newHistory sets up the analyses of the history's weeks (nil when
// p.TrendWeeks is 0). orig is the input before clipping; report the window
// the report analyses, whose result is reused when it is one of the weeks.
// A week that ends at or before the first record of the data is absent:
// wholly before it, it would read as zero and drag the anomaly ranges down.
// A week holding any record (a billing line, even a monthly rental's first
// days, a sample or a task run) is present: it has figures of its own, and
// the movers' means take only the weeks each was billed (moverMean).
func newHistory(orig *Input, report Window, p Params) (*history, error) {
	if p.TrendWeeks <= 0 {
		return nil, nil
	}
	h := &history{asked: p.TrendWeeks}
	first, _, ok := dataExtent(orig)
	lb := orig.Lookback.End.Sub(orig.Lookback.Start)
	for _, w := range HistoryWeeks(orig.Window, p.TrendWeeks, p.Location) {
		if !ok || !w.End.After(first) {
			h.absent = append(h.absent, w.Label)
			continue
		}
		hw := historyWeek{label: w.Label, win: w}
		if !w.Start.Equal(report.Start) || !w.End.Equal(report.End) {
			// The week's own report: its window, and the lookback a report
			// of it would have (an idle run is measured from where it began,
			// inside the lookback too).
			lbw := Window{Start: w.End.Add(-lb), End: w.End}
			wa, err := newWindowAnalysis(&Input{Window: w, Lookback: lbw,
				Lines: orig.Lines, LineStream: orig.LineStream, GPUs: gpusBefore(orig.GPUs, w.End),
				LoadSeries: weekLoader(orig, minTime(lbw.Start, w.Start), w.End),
				TaskRuns:   orig.TaskRuns, Resources: orig.Resources, Teams: orig.Teams, Prices: orig.Prices,
				Params: withoutGroups(orig.Params), SkipHourly: true})
			if err != nil {
				return nil, err
			}
			hw.wa = wa
		}
		h.weeks = append(h.weeks, hw)
	}
	return h, nil
}

// withoutGroups are the parameters of an analysis other than the report
// window's (a history week, the previous window, the month to date, an
// advice's resource): the report's, without the allocation's dimensions.
// Only the report window allocates (windowAnalysis.allocate), and with
// group_by set every line of the shared walk would otherwise be added to
// each such analysis's groups (lineTotal) for nothing.
func withoutGroups(p Params) Params {
	p.GroupBy = nil
	return p
}

// gpusBefore are the GPUs with telemetry before end: a report of the week
// ending there never sees one that first reported after it (a host added
// since would otherwise count as a GPU of its resource, without minutes).
func gpusBefore(gpus []finops.GPUSeries, end time.Time) []finops.GPUSeries {
	out := make([]finops.GPUSeries, 0, len(gpus))
	for _, g := range gpus {
		if first, _, ok := g.Span(); !ok || time.Unix(first*60, 0).Before(end) {
			out = append(out, g)
		}
	}
	return out
}

// weekLoader gives a week's analysis the GPUs' minutes from its lookback's
// start (less the reach of a sample before it, maxCover) to its end, when
// the caller can load a range: each week then reads its own lookback and
// week, not the whole history's every time.
func weekLoader(orig *Input, from, to time.Time) func(context.Context, *finops.GPUSeries) (finops.GPUSeries, error) {
	if orig.LoadSeries == nil || orig.LoadSeriesRange == nil {
		return orig.LoadSeries
	}
	from = from.Add(-(maxCover + 1) * time.Minute)
	return func(ctx context.Context, g *finops.GPUSeries) (finops.GPUSeries, error) {
		return orig.LoadSeriesRange(ctx, g, from, to)
	}
}

// analyses are the weeks' analyses for walkLines.
func (h *history) analyses() []*windowAnalysis {
	if h == nil {
		return nil
	}
	var out []*windowAnalysis
	for _, w := range h.weeks {
		out = append(out, w.wa)
	}
	return out
}

// finish analyses the weeks one after the other, keeping only their
// figures, and adds the flags and movers. report is the report window's
// result.
func (h *history) finish(ctx context.Context, grouped []*gpuResource, report *Result, p Params) (*Trend, error) {
	if h == nil {
		return nil, nil
	}
	tr := &Trend{WeeksAsked: h.asked, AbsentWeeks: h.absent}
	for i := range h.weeks {
		w := &h.weeks[i]
		r := report
		if w.wa != nil {
			var err error
			if r, err = w.wa.finish(ctx, grouped); err != nil {
				return nil, err
			}
			w.wa = nil // its grids and maps go now, not after the last week
		}
		tr.Weeks = append(tr.Weeks, weekFigures(w.label, w.win, r, p.MinCoverage))
	}
	flagTrend(tr)
	return tr, nil
}

// weekFigures takes a week's figures from its result.
func weekFigures(label string, w Window, r *Result, minCoverage float64) TrendWeek {
	lower := func(billed, unmonitored float64) bool {
		return billed > 0 && coverage(billed, unmonitored) < minCoverage
	}
	tw := TrendWeek{Label: label, Start: w.Start, End: w.End, Cost: r.Totals.Cost, IdleCost: r.Totals.IdleCost,
		Coverage: r.Totals.Coverage(), IdleLowerBound: lower(r.Totals.GPUHoursBilled, r.Totals.GPUHoursUnmonitored)}
	units := map[string]map[string]*UnitCost{}
	for _, t := range r.Tasks {
		if t.Units <= 0 {
			continue
		}
		if units[t.Team] == nil {
			units[t.Team] = map[string]*UnitCost{}
		}
		u := units[t.Team][t.Unit]
		if u == nil {
			u = &UnitCost{Unit: t.Unit}
			units[t.Team][t.Unit] = u
		}
		u.Units += t.Units
		u.Cost += t.Cost
	}
	for _, t := range r.ByTeam {
		if t.Cost == 0 && t.IdleCost == 0 && units[t.Team] == nil {
			continue // a configured team with nothing this week
		}
		unmonitored := t.GPUHoursBilled - t.GPUHoursMonitored
		tt := TrendTeam{Team: t.Team, Cost: t.Cost, IdleCost: t.IdleCost, Coverage: coverage(t.GPUHoursBilled, unmonitored),
			IdleLowerBound: lower(t.GPUHoursBilled, unmonitored)}
		for _, unit := range sortedKeys(units[t.Team]) {
			u := *units[t.Team][unit]
			u.UnitCost = u.Cost / u.Units
			tt.UnitCosts = append(tt.UnitCosts, u)
		}
		tw.Teams = append(tw.Teams, tt)
	}
	for _, rc := range r.ByResource {
		if rc.Cost == 0 && rc.IdleCost == 0 {
			continue // billed in another week only
		}
		tw.Resources = append(tw.Resources, TrendResource{ResourceID: rc.ResourceID, ResourceName: rc.ResourceName,
			Team: rc.Team, Cost: rc.Cost, IdleCost: rc.IdleCost,
			Coverage: rc.Coverage(), IdleLowerBound: lower(rc.GPUHoursBilled, rc.GPUHoursUnmonitored)})
	}
	return tw
}

// flagTrend sets every week's anomaly flags and the last week's movers.
// The weeks are consecutive (only weeks before the first data are absent),
// and a team or resource missing from a week had no cost in it: 0 (which
// the movers' means leave out, moverMean).
func flagTrend(tr *Trend) {
	n := len(tr.Weeks)
	totals := make([]float64, n)
	teams, resources := map[string][]float64{}, map[string][]float64{}
	resTeam := map[string]string{}
	for i, w := range tr.Weeks {
		totals[i] = w.Cost
		for _, t := range w.Teams {
			if teams[t.Team] == nil {
				teams[t.Team] = make([]float64, n)
			}
			teams[t.Team][i] = t.Cost
		}
		for _, r := range w.Resources {
			if resources[r.ResourceID] == nil {
				resources[r.ResourceID] = make([]float64, n)
			}
			resources[r.ResourceID][i] = r.Cost
			resTeam[r.ResourceID] = r.Team
		}
	}
	stopped(tr, teams, resources, resTeam)
	for i := range tr.Weeks {
		w := &tr.Weeks[i]
		w.Anomaly = anomaly(totals[i], totals[:i])
		for j := range w.Teams {
			w.Teams[j].Anomaly = anomaly(teams[w.Teams[j].Team][i], teams[w.Teams[j].Team][:i])
		}
		for j := range w.Resources {
			id := w.Resources[j].ResourceID
			w.Resources[j].Anomaly = anomaly(resources[id][i], resources[id][:i])
		}
	}
	if n == 0 {
		return
	}
	last := n - 1
	tr.TotalMover = mover(MoverTotal, "total", "", totals[last], totals[:last])
	tr.EnoughHistory = tr.TotalMover != nil
	if !tr.EnoughHistory {
		return
	}
	for _, name := range sortedKeys(teams) {
		tr.TeamMovers = append(tr.TeamMovers, *mover(MoverTeam, name, "", teams[name][last], teams[name][:last]))
	}
	for _, id := range sortedKeys(resources) {
		tr.ResourceMovers = append(tr.ResourceMovers, *mover(MoverResource, id, resTeam[id], resources[id][last], resources[id][:last]))
	}
	byMoney(tr.TeamMovers)
	byMoney(tr.ResourceMovers)
	tr.TopMovers = topMovers(slices.Concat(tr.TeamMovers, tr.ResourceMovers), TopMoverCount)
}

// stopped gives a team or resource with no cost in a week, but some in one
// of the MoverWeeks before it, a row of 0 that week: stopping is a move, and
// its flag may be below_range.
func stopped(tr *Trend, teams, resources map[string][]float64, resTeam map[string]string) {
	recent := func(s []float64, i int) bool {
		return slices.ContainsFunc(s[max(0, i-MoverWeeks):i], func(v float64) bool { return v != 0 })
	}
	names, ids := sortedKeys(teams), sortedKeys(resources)
	for i := range tr.Weeks {
		w := &tr.Weeks[i]
		for _, name := range names {
			has := slices.ContainsFunc(w.Teams, func(t TrendTeam) bool { return t.Team == name })
			if !has && recent(teams[name], i) {
				w.Teams = append(w.Teams, TrendTeam{Team: name, Coverage: 1})
			}
		}
		for _, id := range ids {
			has := slices.ContainsFunc(w.Resources, func(r TrendResource) bool { return r.ResourceID == id })
			if !has && recent(resources[id], i) {
				w.Resources = append(w.Resources, TrendResource{ResourceID: id, Team: resTeam[id]})
			}
		}
	}
}

// topMovers are the n movers of ms whose change is largest in money, leaving
// out those that did not move: a change within float rounding of 0 (a mean
// of three weeks of 378 is 378 give or take 1e-13) is none.
func topMovers(ms []Mover, n int) []Mover {
	ms = slices.DeleteFunc(slices.Clone(ms), func(m Mover) bool {
		return math.Abs(m.Change) <= 1e-9*max(1, math.Abs(m.Cost), math.Abs(m.Mean))
	})
	byMoney(ms)
	if len(ms) > n {
		ms = ms[:n]
	}
	return ms
}

// byMoney sorts movers by the absolute money of their change, largest
// first; ties: a team before a resource, then by name.
func byMoney(ms []Mover) {
	sort.SliceStable(ms, func(i, j int) bool {
		if a, b := math.Abs(ms[i].Change), math.Abs(ms[j].Change); a != b {
			return a > b
		}
		if ms[i].Kind != ms[j].Kind {
			return ms[i].Kind > ms[j].Kind // MoverTeam > MoverResource
		}
		return ms[i].Name < ms[j].Name
	})
}
