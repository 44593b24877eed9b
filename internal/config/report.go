package config

// ReportSettings holds the report's own settings (key report).
type ReportSettings struct {
	// GroupBy are the dimensions the cost is also grouped by besides the
	// team (allocation.go).
	GroupBy []string `yaml:"group_by"`
	// TrendWeeks is how many weeks the report's history shows, ending with
	// its last whole week (nil: DefaultTrendWeeks; 0: none).
	TrendWeeks *int `yaml:"trend_weeks"`
}

// DefaultTrendWeeks is report.trend_weeks when not given
// (analysis.DefaultTrendWk; TestDefaultsMatchAnalysis keeps them equal).
const DefaultTrendWeeks = 8

// maxTrendWeeks bounds report.trend_weeks: two years of weekly analyses.
const maxTrendWeeks = 104

// TrendWeeks is the configured report.trend_weeks, or its default.
func (c *Config) TrendWeeks() int {
	if c.Report.TrendWeeks != nil {
		return *c.Report.TrendWeeks
	}
	return DefaultTrendWeeks
}

func (c *Config) validateReport() []error {
	var errs refusals
	if w := c.Report.TrendWeeks; w != nil {
		errs.add(numRange{lo: 0, hi: maxTrendWeeks}.check("report.trend_weeks", float64(*w)))
	}
	return errs
}
