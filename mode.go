package finops

// Pricing modes: how a resource is rented. They drive the recommendation.
const (
	ModeHourly    = "hourly"
	ModeDaily     = "daily"
	ModeWeekly    = "weekly"
	ModeMonthly   = "monthly"
	ModeSpot      = "spot"
	ModeCommitted = "committed"
	ModePerTask   = "per_task"
)
