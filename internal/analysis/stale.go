package analysis

import (
	"slices"
	"strings"
	"time"
)

// Staleness (metrics.md §Decided after the fourth review): a telemetry
// source is stale only where a resource it serves is billed after its last
// sample plus one sampling interval plus Params.StaleAfter. Judged against
// the window's end instead, every box released before the week was over
// (an hourly rental stopped on Friday evening, its logs ending with its
// bill) made a healthy week "data incomplete" and the run exit 3; a warning
// that fires every week is soon ignored, and then the real one is missed.
// What a source that stopped says about the money depends on whether
// anything was billed after it, and only the bill can tell.

// markStale decides, for each telemetry source of dq whose GPUs are known,
// whether it is stale, and which teams each source that is not ok touches:
//   - an ok source is stale when one of the resources its GPUs serve is
//     billed in the window (and before Input.Now, when given) past its
//     LastSample plus that GPU's sampling interval plus StaleAfter; it
//     touches the teams of those resources only (the resources whose
//     minutes it leaves unmonitored);
//   - an ok source that is not stale stays ok, whenever it stopped (it is
//     named with the date of its data: a box released last week);
//   - a source this run found missing or partial touches the teams of the
//     resources its GPUs serve that are billed in the window.
//
// Sources whose GPUs are unknown (billing, a source the store has no GPUs
// of) keep their status and may touch every team (SourceStatus.Touches).
// It runs after every resource (a.resource: billedEnd, team) was analysed.
func (a *analyzer) markStale(dq *DataQuality) {
	type served struct {
		r        *gpuResource
		interval time.Duration
	}
	// Every resource a GPU's slots serve, not the last one a map's order
	// happened to visit: which teams a stale source touches must not
	// depend on iteration order.
	by := map[string][]served{}
	seen := map[*gpuResource]bool{}
	for _, r := range a.gpuOwner {
		if seen[r] {
			continue
		}
		seen[r] = true
		for _, s := range r.slots {
			for _, k := range s.keys() {
				by[k] = append(by[k], served{r, s.series.Interval})
			}
		}
	}
	out := make([]SourceStatus, 0, len(dq.Sources))
	for _, s := range dq.Sources {
		if s.Kind != "utilization" {
			out = append(out, s)
			continue
		}
		stale, billed := map[string]bool{}, map[string]bool{}
		for _, k := range s.GPUs {
			for _, sv := range by[k] {
				if sv.r.billedEnd == 0 {
					continue // serves no resource billed in the window
				}
				billed[sv.r.team] = true
				until := a.tl.time(sv.r.billedEnd)
				if now := a.in.Now; !now.IsZero() && until.After(now) {
					until = now // a contract's future is not billed yet
				}
				if !s.LastSample.IsZero() && until.After(s.LastSample.Add(sv.interval+a.p.StaleAfter)) {
					stale[sv.r.team] = true
				}
			}
		}
		switch {
		case len(s.GPUs) == 0:
			// Unknown GPUs: its status stands and it may touch anyone.
		case s.Status == "ok" && len(stale) > 0:
			s.Status, s.Teams, s.TeamsKnown = "stale", sortedKeys(stale), true
			// Its reason says since when (a run's own row says only
			// how many files it read this time).
			if until := "data until " + s.LastSample.UTC().Format(time.RFC3339); !strings.Contains(s.Detail, until) {
				s.Detail = strings.TrimPrefix(s.Detail+", "+until, ", ")
			}
		case s.Status == "ok":
			// A released box: what it served is not billed past its data.
		default:
			s.Teams, s.TeamsKnown = sortedKeys(billed), true // stale ⊆ billed
		}
		s.GPUs = slices.Clone(s.GPUs) // the result shares nothing with the input
		out = append(out, s)
	}
	dq.Sources = out
}

// hasTelemetry reports whether any of sources is a telemetry source: a fleet
// with none is billing-only by design, and its coverage is no reason.
func hasTelemetry(sources []SourceStatus) bool {
	return slices.ContainsFunc(sources, func(s SourceStatus) bool { return s.Kind == "utilization" })
}
