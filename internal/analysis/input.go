// Package analysis computes costs, idle waste, unit costs and recommendations
// from records loaded from the store. It is pure: no SQL, no files, no clock.
package analysis

import (
	"context"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
)

// Input is everything one analysis needs. The caller (cmd) loads it from the
// store for [Lookback.Start, Window.End).
type Input struct {
	Window   Window // the report period
	Lookback Window // recommendation lookback, ending at Window.End

	Lines     []finops.BillingLine // every line overlapping Lookback ∪ Window (nil with LineStream)
	GPUs      []finops.GPUSeries   // utilization per GPU over Lookback ∪ Window
	TaskRuns  []finops.TaskRun
	Resources []Resource // configured resources (may be empty)
	Teams     []Team
	Prices    []Price
	Sources   []SourceStatus // for the data-quality box
	Rejected  int            // rows rejected at ingest (data quality)
	// SamplesDropped and IngestWarnings are what ingest dropped or warned
	// about in the files overlapping the window (data quality).
	SamplesDropped []DroppedSamples
	IngestWarnings []string

	// LoadSeries, when set, gives the minutes of a GPU of GPUs, which are
	// then outlines (finops.GPUSeries.SetSpan: the first and last minute
	// only). The analysis asks for a GPU's minutes when it reaches its
	// resource and lets them go after it, so a quarter of a fleet's minutes is
	// never in memory at once. It must give what a GPUs entry holding the
	// minutes would: the numbers are the same either way.
	LoadSeries func(ctx context.Context, outline *finops.GPUSeries) (finops.GPUSeries, error)
	// LoadSeriesRange, when set with LoadSeries, gives a GPU's minutes in
	// [from, to) only: each week of the history (history.go) reads its own
	// lookback and week rather than the report's whole range.
	LoadSeriesRange func(ctx context.Context, outline *finops.GPUSeries, from, to time.Time) (finops.GPUSeries, error)

	// LineStream, when set, gives the lines and Lines is not read: the analysis
	// reads them as it goes and holds a few numbers of each GPU usage line,
	// so a quarter of a fleet's lines is never in memory. The result is the
	// same either way.
	LineStream *LineStream

	// Now is the moment the report is made, given by the caller, never read
	// from a clock. Zero: unknown, no clock bound (tests, the quarter's
	// review, a period that has ended). Two things stop at it: billing past
	// it (a monthly contract running to the end of the month in the running
	// week's report) is the future, no sign that a telemetry source stopped
	// (stale.go); and a watch action's saving runs to no later than Now, so
	// the running week's report never credits a stop with hours still to
	// come (metrics.md §What the watch saved).
	Now time.Time

	// Watch is what `finops watch` did in the window (nil: nothing).
	Watch *WatchInput
	// Advice holds the decisions of `finops advice` (advice.go).
	Advice AdviceInput

	// SkipHourly leaves Result.HourlyUtil (a mean per GPU and hour: the
	// heatmap and the Utilization sheet) empty, for callers that show no
	// per-GPU hourly view. Over a quarter of 1,000 GPUs it is 2 million hours.
	SkipHourly bool
	// SkipTrends analyses the window and its lookback only: no previous
	// window and no month to date (their Result fields stay zero), so the
	// caller need not load them — for a quarter, the quarter before.
	SkipTrends bool

	Params Params

	// costsOnly is set on the trends' analyses, whose results give only
	// costs: the GPUs' minutes are neither loaded nor laid on the grid, and
	// every minute reads as unmonitored (so their idle and utilization
	// figures mean nothing).
	costsOnly bool
}

// Window is a half-open interval [Start, End) with a display label.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Label string    `json:"-"` // "2026-W47" or "2026-10-31_2026-11-30"
}

// Resource is a billed resource as configured: its GPUs, team and whether its
// work may run on interruptible capacity.
type Resource struct {
	ID            string   // billing ResourceId (or name)
	Hosts         []string // GPU hosts serving it
	GPUs          []string // GPU keys (UUIDs or host/index)
	Team          string
	Interruptible bool
}

// Team is a configured team.
type Team struct {
	Name          string
	Tag           string // billing tag value that marks the team's lines (key "team")
	MonthlyBudget *float64
}

// Price is one row of the price catalog: the price of one GPU in a mode.
type Price struct {
	Provider string
	GPUModel string
	Mode     string  // finops.ModeHourly (per GPU-hour), ModeMonthly (per GPU-month), ModeSpot (per GPU-hour)
	Price    float64 // in Currency
	Currency string
	AsOf     string
}

// Params are the thresholds of metrics.md, all with defaults (DefaultParams).
type Params struct {
	Location      *time.Location // days and weeks are cut here
	Currency      string         // reporting currency; "" = the data's single currency
	FX            map[string]decimal.Decimal
	IdleThreshold float64       // utilization below this is an idle candidate (percent)
	IdleMinSpan   time.Duration // idle candidate runs at least this long are idle
	ReleaseSlack  float64       // hourly option overhead: nobody releases the minute work ends
	SpotInflation float64       // runtime inflation on spot (interruptions, restarts)
	ReleaseBelow  float64       // active GPU-hours per month below which a resource is released
	MinSavingsPct float64       // a saving below this share of current cost is not worth an action
	MinSavingsAbs float64       // nor below this amount per month
	// MinCoverage is the share of billed GPU-hours telemetry must cover
	// (0–1) before the report's idle figures are more than lower bounds
	// (coverage.go).
	MinCoverage    float64
	TargetBandLow  float64
	TargetBandHigh float64
	// ForgottenSpan: an idle run at least this long is a "forgotten instance" finding.
	ForgottenSpan time.Duration
	// SaturatedSpan: utilization above TargetBandHigh for longer than this suggests contention.
	SaturatedSpan time.Duration
	// SpikePct and SpikeFloor: a week-over-week increase is a finding when it is
	// above SpikePct and above SpikeFloor (in the reporting currency; 0 = 1% of
	// the window's total cost).
	SpikePct   float64
	SpikeFloor float64
	// GroupBy are the dimensions the report's cost is also grouped by
	// (allocation.go), and Chargeback how the cost no team owns is spread
	// onto the teams (chargeback.go); none by default.
	GroupBy    []string
	Chargeback ChargebackRules
	// Energy: the grid intensities and PUE that turn kWh into CO₂e (energy_params.go).
	Energy EnergyParams
	// TrendWeeks is how many weeks the history (Result.Trend) holds, ending
	// with the report's last whole week; 0: none.
	TrendWeeks int
	// StaleAfter is how long past a telemetry source's last sample (and
	// one sampling interval) a resource it serves may be billed before the
	// source is stale (stale.go); 0: DefaultStaleAfter.
	StaleAfter time.Duration
}

// DefaultStaleAfter is Params.StaleAfter's default: a day, so a logger
// that ships its files daily is not stale between two shipments.
const DefaultStaleAfter = 24 * time.Hour

// DefaultParams returns the defaults of metrics.md.
func DefaultParams() Params {
	return Params{
		Location:       time.UTC,
		IdleThreshold:  10,
		IdleMinSpan:    30 * time.Minute,
		ReleaseSlack:   0.10,
		SpotInflation:  1.15,
		ReleaseBelow:   5,
		MinSavingsPct:  0.05,
		MinSavingsAbs:  1,
		MinCoverage:    0.8,
		TargetBandLow:  80,
		TargetBandHigh: 95,
		ForgottenSpan:  12 * time.Hour,
		SaturatedSpan:  time.Hour,
		SpikePct:       0.20,
	}
}

// SourceStatus is one source as the data-quality box shows it.
// DroppedSamples counts a telemetry source's readings that were no sample:
// a utilization outside 0–100 % or not a number (finops.ValidUtil).
type DroppedSamples struct {
	Source  string `json:"source"`
	Samples int    `json:"samples"`
}

type SourceStatus struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Status string `json:"status"` // ok, missing, stale, partial, failed
	Detail string `json:"detail,omitempty"`

	// LastSample is a telemetry source's last sample and GPUs the keys of
	// the GPUs its files reported: with them the analysis decides whether
	// it is stale, per resource against billing (stale.go). A source
	// without GPUs is never called stale.
	LastSample time.Time `json:"-"`
	GPUs       []string  `json:"-"`
	// Teams are the teams whose resources a source that is not ok touches,
	// sorted, when TeamsKnown; otherwise (a billing failure, a source whose
	// GPUs are unknown) it may touch every team. A team's slice carries only
	// the sources that touch it (Result.ForTeam).
	Teams      []string `json:"-"`
	TeamsKnown bool     `json:"-"`
}

// Touches reports whether s concerns team: its teams are unknown (it may
// touch any), or they include team.
func (s SourceStatus) Touches(team string) bool {
	return !s.TeamsKnown || slices.Contains(s.Teams, team)
}
