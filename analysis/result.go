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
	DataQuality     DataQuality      `json:"data_quality"`

	// Series for charts and sheets; not part of the JSON contract.
	Daily       []DailyCost `json:"-"`
	HourlyUtil  []GPUHour   `json:"-"`
	GPUsByModel []ModelUtil `json:"-"`
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
	UnusedCommitmentCost float64 `json:"unused_commitment_cost"`
	AvgGPUUtilization    float64 `json:"avg_gpu_utilization"`
	MonthlySavings       float64 `json:"monthly_savings"` // Σ recommendation savings
}

// TeamCost is one team's share of the window.
type TeamCost struct {
	Team     string   `json:"team"`
	Cost     float64  `json:"cost"`
	GPUCost  float64  `json:"gpu_cost"`
	IdleCost float64  `json:"idle_cost"`
	Budget   *float64 `json:"budget"` // monthly budget, when configured
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
	AvgUtilization      float64 `json:"avg_utilization"`
}

// TaskCost is one task's GPU cost and unit cost over the window.
type TaskCost struct {
	Task     string  `json:"task"`
	Team     string  `json:"team"`
	Kind     string  `json:"kind"`
	Cost     float64 `json:"cost"`
	GPUHours float64 `json:"gpu_hours"`
	IdleCost float64 `json:"idle_cost"`
	Units    float64 `json:"units"`
	Unit     string  `json:"unit"`
	UnitCost float64 `json:"unit_cost"` // 0 when units is 0
}

// Recommendation is the advice for one GPU resource (metrics.md §Recommendation).
type Recommendation struct {
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
	Warnings         []string       `json:"warnings"`
}

// DailyCost is the cost of one day (in the report zone) for a team and GPU model.
type DailyCost struct {
	Day      time.Time // local midnight
	Team     string
	GPUModel string // "" for non-GPU cost
	Cost     float64
}

// GPUHour is one GPU's mean utilization over one hour; Util is nil when the
// hour was not monitored.
type GPUHour struct {
	GPU        string
	ResourceID string
	Hour       time.Time
	Util       *float64
}

// ModelUtil is the average utilization per GPU model over the window.
type ModelUtil struct {
	GPUModel       string
	AvgUtilization float64
	GPUHours       float64
}
