package analysis

import "time"

// Result is the report model: every number the reports show. JSON tags follow
// the summary contract in product.md; money is in Result.Currency at full precision.
type Result struct {
	Period          Period           `json:"period"`
	Currency        string           `json:"currency"`
	Totals          Totals           `json:"totals"`
	ByTeam          []TeamCost       `json:"by_team"`
	ByResource      []ResourceCost   `json:"by_resource"`
	Tasks           []TaskCost       `json:"tasks"`
	Recommendations []Recommendation `json:"recommendations"`
	IdleSpans       []IdleSpan       `json:"idle_spans"`
	Findings        []Finding        `json:"findings"` // ranked by money at stake
	Pools           []Pool           `json:"pools"`
	DataQuality     DataQuality      `json:"data_quality"`
	// Watch is what `finops watch` did in the window and saved; nil (no
	// key) when it did nothing.
	Watch *WatchSummary `json:"watch,omitempty"`
	// Allocation is the cost grouped by each report.group_by dimension, and
	// Chargeback the teams' costs with the cost no team owns spread onto
	// them (allocation.go, chargeback.go); absent unless configured.
	Allocation []Allocation `json:"allocation,omitempty"`
	Chargeback *Chargeback  `json:"chargeback,omitempty"`
	// Energy is the GPUs' energy and CO₂e (energy.go); nil (no key) when
	// no billed GPU-minute had a power reading.
	Energy *Energy `json:"energy,omitempty"`
	// Advice is what the decisions of `finops advice` did to this report
	// (advice.go); nil (no key) when there are none.
	Advice *AdviceSummary `json:"advice,omitempty"`
	// Trend is the weekly history, its movers and flags (history.go); nil
	// (no key) when no history was asked for.
	Trend *Trend `json:"trend,omitempty"`
	// Shards is the per-shard table of a rollup (shard.go); nil (no key)
	// in a report of one finops.
	Shards []Shard `json:"shards,omitempty"`

	// Series for charts and sheets; not part of the JSON contract.
	Daily       []DailyCost `json:"-"`
	HourlyUtil  []GPUHours  `json:"-"`
	GPUsByModel []ModelUtil `json:"-"`
	TaskDaily   []TaskDay   `json:"-"`
}

// Period is the report window.
type Period struct {
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	TimeZone string    `json:"timezone"`
	Label    string    `json:"label"`
}

// Totals over the window.
type Totals struct {
	Cost                 float64 `json:"cost"`
	GPUCost              float64 `json:"gpu_cost"`
	NonGPUCost           float64 `json:"non_gpu_cost"`
	OtherCharges         float64 `json:"other_charges"` // tax, credits, adjustments, purchases (inside cost)
	GPUHoursBilled       float64 `json:"gpu_hours_billed"`
	GPUHoursActive       float64 `json:"gpu_hours_active"`
	GPUHoursIdle         float64 `json:"gpu_hours_idle"`
	GPUHoursUnmonitored  float64 `json:"gpu_hours_unmonitored"`
	IdleCost             float64 `json:"idle_cost"`
	UnmonitoredCost      float64 `json:"unmonitored_cost"`
	UnallocatedCost      float64 `json:"unallocated_cost"`
	AllocatedIdleCost    float64 `json:"allocated_idle_cost"` // idle minutes a task held: fix the job, not the machine
	UnusedCommitmentCost float64 `json:"unused_commitment_cost"`
	AvgGPUUtilization    float64 `json:"avg_gpu_utilization"`
	MonthlySavings       float64 `json:"monthly_savings"` // Σ savings of the open advice (advice.go)
	// PreviousCost is the cost of the same-length window just before this
	// one, every team's (also those with nothing in this window); 0 when it
	// was not analysed.
	PreviousCost float64 `json:"previous_cost"`
}

// TeamCost is one team's share of the window.
type TeamCost struct {
	Team     string   `json:"team"`
	Cost     float64  `json:"cost"`
	GPUCost  float64  `json:"gpu_cost"`
	IdleCost float64  `json:"idle_cost"`
	Budget   *float64 `json:"budget"` // monthly budget, when configured
	// PreviousCost is the same-length window just before this one (week over week).
	PreviousCost float64 `json:"previous_cost"`
	// MonthToDate is the team's spend from the first of the window end's month
	// to the window end; MonthForecast extends its daily rate to the month end.
	MonthToDate   float64 `json:"month_to_date"`
	MonthForecast float64 `json:"month_forecast"`
	// GPU-hours of the team's resources: billed, and monitored by telemetry
	// (coverage = monitored ÷ billed).
	GPUHoursBilled    float64 `json:"gpu_hours_billed"`
	GPUHoursMonitored float64 `json:"gpu_hours_monitored"`
}

// ResourceCost is one GPU resource over the window.
type ResourceCost struct {
	ResourceID          string  `json:"resource_id"`
	ResourceName        string  `json:"resource_name,omitempty"`
	Provider            string  `json:"provider"`
	GPUModel            string  `json:"gpu_model"`
	GPUCount            int     `json:"gpu_count"`
	Pricing             string  `json:"pricing"`
	Team                string  `json:"team"`
	Cost                float64 `json:"cost"`
	GPUHoursBilled      float64 `json:"gpu_hours_billed"`
	GPUHoursActive      float64 `json:"gpu_hours_active"`
	GPUHoursIdle        float64 `json:"gpu_hours_idle"`
	GPUHoursUnmonitored float64 `json:"gpu_hours_unmonitored"`
	IdleCost            float64 `json:"idle_cost"`
	UnmonitoredCost     float64 `json:"unmonitored_cost"`
	// UnallocatedCost is its billed GPU time no task held (the fleet's
	// Totals.UnallocatedCost is the sum over resources; so is a team's).
	UnallocatedCost float64 `json:"unallocated_cost"`
	// IdleCost and AvgUtilization mean nothing where no billed GPU-hour
	// was monitored (IdleReading): the JSON writes them null then.
	AvgUtilization float64 `json:"avg_utilization"`
	PreviousCost   float64 `json:"previous_cost"`
	// Bands are billed monitored GPU-hours per utilization band (metrics.md).
	Bands UtilBands `json:"utilization_bands"`
	// SaturatedHours is the longest run of > 95% utilization, in hours;
	// over an hour suggests contention.
	SaturatedHours float64 `json:"saturated_hours"`
}

// UtilBands are GPU-hours per utilization band: <10 idle, 10–50 low,
// 50–80 fair, 80–95 target, >95 saturated.
type UtilBands struct {
	Idle      float64 `json:"idle"`
	Low       float64 `json:"low"`
	Fair      float64 `json:"fair"`
	Target    float64 `json:"target"`
	Saturated float64 `json:"saturated"`
}

// Finding is one thing worth acting on, with the money at stake.
type Finding struct {
	Kind       string  `json:"kind"`     // one of the Finding* constants
	Severity   string  `json:"severity"` // high, medium, low
	ResourceID string  `json:"resource_id,omitempty"`
	Team       string  `json:"team,omitempty"`
	Money      float64 `json:"money"` // in Currency; per month for recommendations, else in the window
	Text       string  `json:"text"`
}

// Finding kinds.
const (
	FindingRecommendation = "recommendation"     // a rent-mode change or release (monthly saving)
	FindingForgotten      = "forgotten_instance" // an idle run of 12 h or more (e.g. a weekend)
	FindingAllocatedIdle  = "allocated_idle"     // a task held GPUs it did not use
	FindingUnallocated    = "unallocated"        // billed GPU time no task held
	FindingSaturated      = "saturated"          // sustained > 95% for over an hour
	FindingSpendSpike     = "spend_spike"        // week-over-week increase > 20% above a floor
	FindingBudget         = "budget_forecast"    // month-end forecast above the team's budget
	FindingUnusedCommit   = "unused_commitment"  // commitment paid for, used by nothing
	FindingNoTelemetry    = "no_telemetry"       // GPU spend without utilization data
)

// Pool is the recommendation for a (provider, GPU model) pool: how many
// monthly cards minimise cost given the hourly history of busy GPUs, with the
// rest burst hourly.
type Pool struct {
	Provider           string  `json:"provider"`
	GPUModel           string  `json:"gpu_model"`
	Resources          int     `json:"resources"`
	GPUs               int     `json:"gpus"`
	CurrentMonthlyCost float64 `json:"current_monthly_cost"`
	MonthlyCards       int     `json:"monthly_cards"`
	PoolMonthlyCost    float64 `json:"pool_monthly_cost"`
	MonthlySavings     float64 `json:"monthly_savings"`
	Reason             string  `json:"reason"`
}

// TaskDay is one task's cost and units on one day (unit-cost trend).
type TaskDay struct {
	Day   time.Time
	Task  string
	Cost  float64
	Units float64
}

// TaskCost is one task's GPU cost and unit cost over the window.
type TaskCost struct {
	Task     string  `json:"task"`
	Team     string  `json:"team"`
	Kind     string  `json:"kind"`
	Cost     float64 `json:"cost"`
	GPUHours float64 `json:"gpu_hours"`
	// GPUHoursMonitored are the GPU-hours it held that telemetry saw: its
	// idle cost is unknown (null) when none, a lower bound when some.
	GPUHoursMonitored float64 `json:"gpu_hours_monitored"`
	IdleCost          float64 `json:"idle_cost"`
	Units             float64 `json:"units"`
	Unit              string  `json:"unit"`
	UnitCost          float64 `json:"unit_cost"` // 0 when units is 0
}

// Recommendation is the advice for one GPU resource (metrics.md §Recommendation).
type Recommendation struct {
	ID                     string  `json:"id,omitempty"` // AdviceID; none for keep
	ResourceID             string  `json:"resource_id"`
	GPUModel               string  `json:"gpu_model"`
	GPUCount               int     `json:"gpu_count"`
	CurrentMode            string  `json:"current_mode"`
	Action                 string  `json:"action"`
	CurrentMonthlyCost     float64 `json:"current_monthly_cost"`
	RecommendedMonthlyCost float64 `json:"recommended_monthly_cost"`
	MonthlySavings         float64 `json:"monthly_savings"`
	ActiveHoursPerMonth    float64 `json:"active_hours_per_month"`    // per GPU, A30
	BreakevenHoursPerMonth float64 `json:"breakeven_hours_per_month"` // 0 when prices are unknown
	Confidence             string  `json:"confidence"`
	Reason                 string  `json:"reason"`
}

// Recommendation actions.
const (
	ActionKeep            = "keep"
	ActionSwitchToHourly  = "switch_to_hourly"
	ActionSwitchToMonthly = "switch_to_monthly"
	ActionSwitchToDaily   = "switch_to_daily"  // where the catalog offers daily rentals
	ActionSwitchToWeekly  = "switch_to_weekly" // where the catalog offers weekly rentals
	ActionSwitchToSpot    = "switch_to_spot"
	ActionStopWhenIdle    = "stop_when_idle"
	ActionRelease         = "release"
)

// IdleSpan is one idle run of one GPU inside the window, with its cost.
type IdleSpan struct {
	ResourceID string    `json:"resource_id"`
	GPU        string    `json:"gpu"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	Hours      float64   `json:"hours"`
	Cost       float64   `json:"cost"`
}

// DataQuality says how far the numbers can be trusted.
type DataQuality struct {
	Sources          []SourceStatus `json:"sources"`
	RowsRejected     int            `json:"rows_rejected"`
	UnmonitoredShare float64        `json:"unmonitored_share"` // of billed GPU-hours, 0–1
	// Coverage is monitored ÷ billed GPU-hours, 0–1 (1 when nothing was
	// billed); MinCoverage the share below which the report is incomplete.
	Coverage    float64 `json:"coverage"`
	MinCoverage float64 `json:"min_coverage"`
	// Incomplete says why the numbers may be wrong — a source stale,
	// missing or failed, telemetry covering too little — first in every
	// output; not empty makes the run exit 3 (coverage.go).
	Incomplete []string `json:"incomplete"`
	Warnings   []string `json:"warnings"`
	// Clipped, when the window asked for was far longer than the data, says
	// which days the report covers instead (also first in Warnings).
	Clipped string `json:"clipped,omitempty"`
	// GPUs with telemetry that no billed resource claims, and billed GPU
	// resources with no telemetry at all (both also in Warnings).
	UnmatchedGPUs      []UnmatchedGPU `json:"unmatched_gpus,omitempty"`
	UnmatchedResources []string       `json:"unmatched_resources,omitempty"`
	// Telemetry readings dropped at ingest, per source (also in Warnings).
	SamplesDropped []DroppedSamples `json:"samples_dropped,omitempty"`
	// ExchangeRates are the config's fx rates the analysis converted with
	// (bill lines or catalog prices in another currency), by currency.
	ExchangeRates []ExchangeRate `json:"exchange_rates,omitempty"`
}

// ExchangeRate is one fx rate used: 1 Currency = Rate of the reporting currency.
type ExchangeRate struct {
	Currency string  `json:"currency"`
	Rate     float64 `json:"rate"`
}

// UnmatchedGPU is a GPU whose telemetry matches no billed resource.
type UnmatchedGPU struct {
	GPU   string `json:"gpu"`
	Host  string `json:"host"`
	Model string `json:"model,omitempty"`
	// Slice is a vGPU profile's or MIG instance's name ("MIG 1g.10gb") when
	// the GPU is a slice of a Model card, not the card.
	Slice string `json:"slice,omitempty"`
}

// DailyCost is the cost of one day (in the report zone) for a team and GPU model.
type DailyCost struct {
	Day      time.Time // local midnight
	Team     string
	GPUModel string // "" for non-GPU cost
	Cost     float64
}

// GPUHours is one GPU's mean utilization in each hour from Start (the
// window's), NaN in an hour that was not monitored. One row per GPU, not per
// hour: a week of 10,000 GPUs is 1.68 M hours, 13 MB here and 120 MB as a
// struct with its labels, time and pointer per hour.
type GPUHours struct {
	GPU        string
	ResourceID string
	Start      time.Time
	Util       []float64
}

// Hour is the start of hour i.
func (g *GPUHours) Hour(i int) time.Time { return g.Start.Add(time.Duration(i) * time.Hour) }

// ModelUtil is the average utilization per GPU model over the window.
type ModelUtil struct {
	GPUModel       string
	AvgUtilization float64 // over monitored GPU-hours; unknown when there are none
	GPUHours       float64
	// GPUHoursMonitored are the billed GPU-hours with telemetry.
	GPUHoursMonitored float64
}

// UtilKnown reports whether the model's utilization was measured at all.
func (m ModelUtil) UtilKnown() bool { return readingOf(m.GPUHours, m.GPUHoursMonitored).Known() }
