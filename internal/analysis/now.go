package analysis

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/finops-oss/finops"
)

// ResourceNow is one billed GPU resource as `finops watch` sees it at a
// moment: its GPUs joined to telemetry as the report joins them (matchGPUs)
// and classified by the report's idle rule (buildGrid), so the watch and the
// weekly report never disagree about what idle is.
type ResourceNow struct {
	ID, Name, Provider, Model, Mode, Team string
	ConfigID                              string // the resources entry it matched ("" when none)
	GPUs                                  int    // the most GPUs its latest lines bill
	Monitored                             int    // GPUs with telemetry in the lookback
	Interruptible                         bool

	// LastSeen is the end of the last minute a sample covers on any of its
	// GPUs; zero when none reported in the lookback.
	LastSeen time.Time
	// IdleSince is the start of the idle run (metrics.md: utilization below
	// idle_utilization for at least idle_min_span) that every monitored GPU
	// is in at its last covered minute: the latest of their starts. Zero
	// when any GPU is active there or a candidate run is still shorter than
	// the span.
	IdleSince time.Time
	// IdleSinceAtLeast: the idle run starts at the lookback's start (within
	// a sampling interval of it, no busy minute before), so it may have
	// begun before IdleSince: "idle since at least …".
	IdleSinceAtLeast bool
	// FirstBilled and LastBilled bound the GPU usage lines handed in.
	FirstBilled, LastBilled time.Time

	// HourlyRate is what the whole resource costs an hour in Currency: from
	// its latest priced usage line, else the price catalog's hourly price
	// times its GPUs. RateKnown is false when neither gives one.
	HourlyRate float64
	RateKnown  bool
	RateFrom   string // "bill" or "catalog"; "" when unknown
	Currency   string
}

// Now computes every GPU resource's state at now from in.Lines (the latest
// usage lines of each resource are enough), in.GPUs (utilization over the
// watch's lookback) and the configured resources, teams and prices. The
// timeline ends at now: samples stamped after it (a host whose clock runs
// ahead) are left out and warned about. Pure, like the rest of analysis.
func Now(in *Input, from, now time.Time) ([]ResourceNow, []string, error) {
	if in.LoadSeries != nil {
		return nil, nil, errors.New("analysis: Now needs the GPUs' minutes in Input.GPUs, not outlines")
	}
	p := withDefaults(in.Params)
	if in.LineStream != nil {
		return nil, nil, errors.New("analysis: Now needs the lines in Input.Lines, not a LineStream")
	}
	conv, err := newConverter(p, lineCurrencies(in))
	if err != nil {
		return nil, nil, err
	}
	a := &analyzer{in: in, p: p, conv: conv, cfg: newResourceConfig(in.Resources), teamTag: map[string]string{}}
	for _, t := range in.Teams {
		a.teamTag[strings.ToLower(t.Name)] = t.Name
		if t.Tag != "" {
			a.teamTag[strings.ToLower(t.Tag)] = t.Name
		}
	}
	var warnings []string
	nowMin := floorMinute(now)
	for i := range in.GPUs {
		s := &in.GPUs[i]
		if _, lm, ok := s.Span(); ok && lm > nowMin {
			last := time.Unix(lm*60, 0).UTC()
			warnings = append(warnings, fmt.Sprintf("GPU %s on host %q has samples up to %s, after now (%s): its clock "+
				"runs ahead; those samples are ignored until then — fix the host's time (NTP)", s.Key, s.Host,
				last.Format(time.RFC3339), now.UTC().Format(time.RFC3339)))
		}
	}
	tl := newTimeline(from, now)
	resources := groupGPUResources(in.Lines, conv)
	_, overfull, ambiguous := matchGPUs(resources, a.cfg, in.GPUs)
	for _, k := range overfull {
		warnings = append(warnings, fmt.Sprintf("%s: more GPUs report telemetry than the bill says it has; extra GPUs were left unmatched", k))
	}
	for _, h := range ambiguous {
		warnings = append(warnings, fmt.Sprintf("GPU host %s could belong to several billed resources: map it under resources in the config", h))
	}
	out := make([]ResourceNow, 0, len(resources))
	for _, r := range resources {
		a.resolveResource(r)
		rn := ResourceNow{ID: r.key, Name: r.name, Provider: r.provider, Model: r.model, Mode: r.mode, Team: r.team,
			GPUs: r.gpuCount, Monitored: len(r.slots), Interruptible: r.interruptible, Currency: conv.currency}
		if c, ok := a.cfg.lookup(r.key, r.name); ok {
			rn.ConfigID = c.ID
		}
		rn.FirstBilled, rn.LastBilled = r.lines[0].ChargeStart, r.lines[0].ChargeEnd
		for _, l := range r.lines {
			rn.FirstBilled = minTime(rn.FirstBilled, l.ChargeStart)
			rn.LastBilled = maxTime(rn.LastBilled, l.ChargeEnd)
		}
		rn.HourlyRate, rn.RateFrom = a.hourlyRate(r)
		rn.RateKnown = rn.RateFrom != ""
		rn.LastSeen, rn.IdleSince, rn.IdleSinceAtLeast = tailState(tl, r, p)
		out = append(out, rn)
	}
	return out, warnings, nil
}

// tailState is the end of the last covered minute on r's GPUs and the start
// of the idle run they are all in there (zero when any is not idle).
func tailState(tl timeline, r *gpuResource, p Params) (lastSeen, idleSince time.Time, atLeast bool) {
	allIdle := len(r.slots) > 0
	since, seen := -1, 0
	var g gpuGrid
	for _, s := range r.slots {
		if len(s.parts) > 0 {
			g = cardGrid(tl, s, p.IdleThreshold, p.IdleMinSpan, g)
		} else {
			g = buildGrid(tl, s.series, p.IdleThreshold, p.IdleMinSpan, g)
		}
		last := len(g.class) - 1
		for last >= 0 && g.class[last] == unmonitored {
			last--
		}
		if last < 0 {
			allIdle = false // no sample in the lookback: it cannot vouch for idleness
			continue
		}
		seen = max(seen, last+1)
		if g.class[last] != idle {
			allIdle = false
			continue
		}
		// A gap inside the run neither ends it (metrics.md §Gaps, as the
		// grid counts it): the spell began at the first idle minute before
		// it, not where telemetry came back.
		start, i := last, last-1
		for ; i >= 0 && g.class[i] != active; i-- {
			if g.class[i] == idle {
				start = i
			}
		}
		// No busy minute before it, and it starts within a sampling
		// interval of the lookback's start: the lookback cut it, and it
		// may have begun before. (A run whose first sample comes later,
		// after a silence, starts where its telemetry does, as in the
		// report.) The resource's run starts at its GPUs' latest start,
		// which is a bound when every GPU starting there is.
		reached := i < 0 && start <= maxCover
		switch {
		case start > since:
			since, atLeast = start, reached
		case start == since:
			atLeast = atLeast && reached
		}
	}
	if seen > 0 {
		lastSeen = tl.time(seen)
	}
	if allIdle && since >= 0 {
		idleSince = tl.time(since)
	} else {
		atLeast = false
	}
	return lastSeen, idleSince, atLeast
}

// hourlyRate is the resource's cost per hour in the reporting currency: its
// latest line with a cost, spread over that line's period (metrics.md's
// rate, times its GPUs), else the catalog's hourly price per GPU times the
// GPU count. from says which, "" when neither is known.
func (a *analyzer) hourlyRate(r *gpuResource) (rate float64, from string) {
	var latest *finops.BillingLine
	for _, l := range r.lines {
		if _, ok := l.Cost(); ok && (latest == nil || !l.ChargeStart.Before(latest.ChargeStart)) {
			latest = l
		}
	}
	if latest != nil {
		c, _ := latest.Cost()
		hours := latest.ChargeEnd.Sub(latest.ChargeStart).Hours()
		per := a.conv.amount(c, latest.Currency).InexactFloat64() / hours
		if latest.GPUCount > 0 && latest.GPUCount < r.gpuCount {
			per *= float64(r.gpuCount) / float64(latest.GPUCount)
		}
		return per, "bill"
	}
	if v := a.catalogPrice(r.provider, r.model, finops.ModeHourly); !math.IsNaN(v) {
		return v * float64(r.gpuCount), "catalog"
	}
	return 0, ""
}

// LineKeeper keeps, of a stream of billing lines, each GPU resource's
// earliest and latest usage line: what Now needs (the resource, its GPU
// count and rate, how long it has been billed) from days of lines without
// holding them all.
type LineKeeper struct {
	first, last map[string]finops.BillingLine
}

// Add offers one line; it keeps a copy when it is its resource's earliest or latest.
func (k *LineKeeper) Add(l *finops.BillingLine) {
	if !l.IsGPUUsage() {
		return
	}
	if k.first == nil {
		k.first, k.last = map[string]finops.BillingLine{}, map[string]finops.BillingLine{}
	}
	g := groupKey(l)
	if f, ok := k.first[g]; !ok || l.ChargeStart.Before(f.ChargeStart) {
		k.first[g] = *l
	}
	if f, ok := k.last[g]; !ok || !l.ChargeStart.Before(f.ChargeStart) {
		k.last[g] = *l
	}
}

// Lines returns the kept lines, earliest before latest per resource.
func (k *LineKeeper) Lines() []finops.BillingLine {
	var out []finops.BillingLine
	for _, g := range sortedKeys(k.first) {
		out = append(out, k.first[g])
		if l := k.last[g]; !l.ChargeStart.Equal(k.first[g].ChargeStart) {
			out = append(out, l)
		}
	}
	return out
}
