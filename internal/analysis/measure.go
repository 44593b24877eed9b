package analysis

// Unknown is not zero (docs/METRICS.md §Unknown is not zero): a figure
// nobody measured is never shown as 0: it is null in JSON (coverage beside
// it), "unknown"/"—" on screen, blank in the workbook; a partly measured one
// carries "≥".
//
// The figures that telemetry measures (idle cost, average utilization) keep
// their float64 fields so every sum over them stays as it was; beside each
// stands what says how far it was measured: the coverage of its billed
// GPU-hours, read through IdleReading. The writers in report/ ask it before
// they print a figure, and the JSON writes null where it says Unmeasured
// (json_unknown.go).

// Reading says how much of a figure's billed GPU time telemetry saw.
type Reading uint8

// Readings.
const (
	// Unmeasured: billed GPU time, none of it monitored. The figure is
	// unknown, never 0.
	Unmeasured Reading = iota
	// PartlyMeasured: some of it monitored. Idle cost (and energy) are
	// lower bounds: the unmonitored time may have been idle too.
	PartlyMeasured
	// Measured: all of it monitored, or nothing billed (nothing unseen).
	Measured
)

// measureEps is the GPU-hours below which a share counts as none: sums of
// 1/60 h minutes split between tasks leave rounding crumbs.
const measureEps = 1e-9

// readingOf is the reading of a figure over billed GPU-hours of which
// monitored were monitored.
func readingOf(billed, monitored float64) Reading {
	switch {
	case billed <= measureEps:
		return Measured
	case monitored <= measureEps:
		return Unmeasured
	case monitored < billed-measureEps:
		return PartlyMeasured
	}
	return Measured
}

// readingOfCoverage is the reading of a figure whose coverage (0–1, 1 when
// nothing was billed) is all that is kept: the trend's weeks.
func readingOfCoverage(c float64) Reading {
	switch {
	case c <= 0:
		return Unmeasured
	case c < 1-1e-12:
		return PartlyMeasured
	}
	return Measured
}

// Known reports whether the figure means anything (some of it was measured).
func (m Reading) Known() bool { return m != Unmeasured }

// LowerBound reports whether the figure is only a lower bound.
func (m Reading) LowerBound() bool { return m == PartlyMeasured }

// IdleReading is how far the totals' idle cost and utilization were measured.
func (t Totals) IdleReading() Reading {
	return readingOf(t.GPUHoursBilled, t.GPUHoursBilled-t.GPUHoursUnmonitored)
}

// Coverage is the resource's monitored share of its billed GPU-hours (1 when
// none were billed).
func (rc ResourceCost) Coverage() float64 {
	return coverage(rc.GPUHoursBilled, rc.GPUHoursUnmonitored)
}

// IdleReading is how far the resource's idle cost and utilization were measured.
func (rc ResourceCost) IdleReading() Reading {
	return readingOf(rc.GPUHoursBilled, rc.GPUHoursBilled-rc.GPUHoursUnmonitored)
}

// Coverage is the monitored share of the team's resources' billed GPU-hours
// (1 when none were billed).
func (tc TeamCost) Coverage() float64 {
	return coverage(tc.GPUHoursBilled, tc.GPUHoursBilled-tc.GPUHoursMonitored)
}

// IdleReading is how far the team's idle cost was measured: over its
// resources' billed GPU-hours, as its coverage.
func (tc TeamCost) IdleReading() Reading { return readingOf(tc.GPUHoursBilled, tc.GPUHoursMonitored) }

// Coverage is the monitored share of the GPU-hours the task held (1 when it
// held none).
func (tk TaskCost) Coverage() float64 {
	return coverage(tk.GPUHours, tk.GPUHours-tk.GPUHoursMonitored)
}

// IdleReading is how far the task's idle cost was measured: over the
// GPU-hours it held.
func (tk TaskCost) IdleReading() Reading { return readingOf(tk.GPUHours, tk.GPUHoursMonitored) }

// AllocatedIdleReading is how far the allocated-but-idle cost of tasks (a
// report's or a team's) was measured: over the GPU-hours they held. No task
// held any: nothing unseen, Measured (an exact 0, not "≥ 0").
func AllocatedIdleReading(tasks []TaskCost) Reading {
	var held, monitored float64
	for _, tk := range tasks {
		held += tk.GPUHours
		monitored += tk.GPUHoursMonitored
	}
	return readingOf(held, monitored)
}

// IdleReading is how far the week's idle cost was measured.
func (w TrendWeek) IdleReading() Reading { return readingOfCoverage(w.Coverage) }

// IdleReading is how far the team's week's idle cost was measured.
func (t TrendTeam) IdleReading() Reading { return readingOfCoverage(t.Coverage) }

// IdleReading is how far the resource's week's idle cost was measured.
func (r TrendResource) IdleReading() Reading { return readingOfCoverage(r.Coverage) }

// Reading is how far power readings measured the energy (and its CO₂e).
func (u EnergyUse) Reading() Reading {
	switch {
	case u.PowerCoverage <= 0:
		return Unmeasured
	case u.LowerBound:
		return PartlyMeasured
	}
	return Measured
}

// value is v where m is known, else nil: what the JSON writes.
func (m Reading) value(v float64) *float64 {
	if !m.Known() {
		return nil
	}
	return &v
}
