package analysis

// Shard is one row of a rollup's per-shard table (`finops rollup`,
// docs/ROLLUP.md): one finops' JSON summary, by the name the rollup gave it.
// Cost is in the rollup's currency (Result.Currency), converted at the rate
// the rollup was given where the shard's own Currency differs.
type Shard struct {
	Name              string  `json:"name"`
	Period            string  `json:"period"`
	Currency          string  `json:"currency"`
	Cost              float64 `json:"cost"`
	GPUHoursBilled    float64 `json:"gpu_hours_billed"`
	GPUHoursMonitored float64 `json:"gpu_hours_monitored"`
	Coverage          float64 `json:"coverage"` // monitored ÷ billed, 0–1; 1 when nothing was billed
	Incomplete        bool    `json:"incomplete"`
}
