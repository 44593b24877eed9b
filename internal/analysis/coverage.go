package analysis

import (
	"fmt"
	"math"
)

// Coverage (metrics.md §Decided after the third review): monitored GPU-hours
// ÷ billed GPU-hours. What telemetry did not see cannot be called idle or
// busy, so below full coverage the idle figures are lower bounds, and with
// none they are unknown, never 0. When a telemetry source stopped, or
// telemetry covers less than Params.MinCoverage of the billed hours, the
// report is incomplete: it says so first (DataQuality.Incomplete), the
// email's subject says so, and the run exits 3.

// coverage is monitored ÷ billed GPU-hours; 1 when nothing was billed (no
// GPU-hour went unseen).
func coverage(billed, unmonitored float64) float64 {
	if billed <= 0 {
		return 1
	}
	return math.Min(1, math.Max(0, (billed-unmonitored)/billed))
}

// Coverage is the report's (or a team slice's) monitored share of billed
// GPU-hours.
func (t Totals) Coverage() float64 { return coverage(t.GPUHoursBilled, t.GPUHoursUnmonitored) }

// IdleKnown reports whether the idle figures mean anything: some billed
// GPU-hour was monitored, or none was billed (IdleReading, the one rule).
func (t Totals) IdleKnown() bool { return t.IdleReading().Known() }

// IdleLowerBound reports whether the idle figures are only lower bounds:
// some billed GPU-hours were monitored, not all (IdleReading).
func (t Totals) IdleLowerBound() bool { return t.IdleReading().LowerBound() }

// markCoverage sets the data quality's coverage and the reasons the report
// is incomplete: every source of dq not ok, and coverage below minCoverage
// where the fleet has telemetry at all (a fleet with no telemetry source is
// billing-only by design: its idle is "unknown", but nothing stopped). A
// team's slice passes the fleet's telemetry: its box may have lost another
// team's telemetry sources, not the fact that there is telemetry.
func markCoverage(dq *DataQuality, t Totals, minCoverage float64, telemetry bool) {
	dq.Coverage = t.Coverage()
	dq.MinCoverage = minCoverage
	dq.Incomplete = nil
	for _, s := range dq.Sources {
		if s.Status != "" && s.Status != "ok" {
			r := fmt.Sprintf("Source %s is %s", s.Name, s.Status)
			if s.Detail != "" {
				r += ": " + s.Detail
			}
			dq.Incomplete = append(dq.Incomplete, r)
		}
	}
	switch {
	case !telemetry || t.GPUHoursBilled <= 0 || dq.Coverage >= minCoverage:
	case !t.IdleKnown():
		// Not "no advice rests on utilization": the advice reads the
		// lookback's telemetry, which may cover what this window's did not.
		dq.Incomplete = append(dq.Incomplete, fmt.Sprintf("No telemetry covered any of the %.1f billed GPU-hours: idle cost "+
			"and utilization are unknown", t.GPUHoursBilled))
	default:
		dq.Incomplete = append(dq.Incomplete, fmt.Sprintf("Telemetry covers %.0f%% of the %.1f billed GPU-hours (at least %.0f%% "+
			"is needed): idle cost and savings are at least what is shown, and may be more", 100*dq.Coverage, t.GPUHoursBilled,
			100*minCoverage))
	}
}
