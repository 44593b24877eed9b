package analysis

import "time"

// Trend is the report's weekly history (Params.TrendWeeks weeks ending with
// the report's last whole week), its movers and its anomaly flags
// (docs/METRICS.md §Trend). Each week's figures are what a report of that
// week alone says.
type Trend struct {
	// WeeksAsked is Params.TrendWeeks; Weeks holds fewer when some started
	// before the first imported data (AbsentWeeks: absent, not zero).
	WeeksAsked  int         `json:"weeks_asked"`
	AbsentWeeks []string    `json:"absent_weeks"`
	Weeks       []TrendWeek `json:"weeks"` // oldest first
	// EnoughHistory is false when the last week has fewer than MoverWeeks
	// weeks before it: no mover changes and no flags then.
	EnoughHistory  bool    `json:"enough_history"`
	TotalMover     *Mover  `json:"total_mover"`
	TeamMovers     []Mover `json:"team_movers"`
	ResourceMovers []Mover `json:"resource_movers"`
	// TopMovers are the teams and resources whose last week moved most
	// from their mean, by absolute money (at most TopMoverCount).
	TopMovers []Mover `json:"top_movers"`
}

// TrendWeek is one week of the history.
type TrendWeek struct {
	Label    string    `json:"label"` // ISO week in the report zone, "2026-W46"
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Cost     float64   `json:"cost"`
	IdleCost float64   `json:"idle_cost"`
	// Coverage is monitored ÷ billed GPU-hours (1 when nothing was billed);
	// IdleLowerBound is set when it is below Params.MinCoverage: the idle
	// cost is then at least what is shown.
	Coverage       float64 `json:"coverage"`
	IdleLowerBound bool    `json:"idle_lower_bound"`
	// Anomaly is the week's total cost against the weeks before it
	// (Anomaly* constants).
	Anomaly   string          `json:"anomaly"`
	Teams     []TrendTeam     `json:"teams"`
	Resources []TrendResource `json:"resources"`
}

// TrendTeam is one team's week.
type TrendTeam struct {
	Team           string     `json:"team"`
	Cost           float64    `json:"cost"`
	IdleCost       float64    `json:"idle_cost"`
	Coverage       float64    `json:"coverage"` // of the team's resources' billed GPU-hours
	IdleLowerBound bool       `json:"idle_lower_bound"`
	Anomaly        string     `json:"anomaly"`
	UnitCosts      []UnitCost `json:"unit_costs"`
}

// UnitCost is a team's cost per unit of work over a week: the cost of its
// tasks that count units in Unit, divided by those units.
type UnitCost struct {
	Unit     string  `json:"unit"`
	Units    float64 `json:"units"`
	Cost     float64 `json:"cost"`
	UnitCost float64 `json:"unit_cost"`
}

// TrendResource is one GPU resource's week.
type TrendResource struct {
	ResourceID     string  `json:"resource_id"`
	ResourceName   string  `json:"resource_name,omitempty"`
	Team           string  `json:"team"`
	Cost           float64 `json:"cost"`
	IdleCost       float64 `json:"idle_cost"`
	Coverage       float64 `json:"coverage"` // of its billed GPU-hours (1 when none)
	IdleLowerBound bool    `json:"idle_lower_bound"`
	Anomaly        string  `json:"anomaly"`
}

// Mover is the last week's cost of the total, a team or a resource against
// the mean of its billed weeks among the MoverWeeks weeks before it.
type Mover struct {
	Kind string  `json:"kind"` // total, team, resource
	Name string  `json:"name"`
	Team string  `json:"team,omitempty"` // a resource's team
	Cost float64 `json:"cost"`
	Mean float64 `json:"mean"`
	// BaselineWeeks is how many of the MoverWeeks weeks before the last
	// the mean takes: those it was billed in ("vs the 2-week mean"); 0 when
	// it had no cost in any of them (Mean 0: new).
	BaselineWeeks int `json:"baseline_weeks"`
	// Change is Cost − Mean; ChangePct is Change ÷ Mean, nil when the mean is 0.
	Change    float64  `json:"change"`
	ChangePct *float64 `json:"change_pct"`
}

// Mover kinds.
const (
	MoverTotal    = "total"
	MoverTeam     = "team"
	MoverResource = "resource"
)

// Anomaly values of a week's figure (anomaly.go).
const (
	AnomalyNone    = "in_range"
	AnomalyHigh    = "above_range"
	AnomalyLow     = "below_range"
	AnomalyNoHist  = "not_enough_history"
	MoverWeeks     = 4 // weeks a mover's mean and an anomaly's range take
	TopMoverCount  = 5
	DefaultTrendWk = 8 // config report.trend_weeks when not given
)
