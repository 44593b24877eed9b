package cli

import (
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
)

// ReportWindow is the window the report-period flags name
// (config.Period.Window); a period they cannot name is a usage error.
func ReportWindow(p config.Period, now time.Time, loc *time.Location) (analysis.Window, error) {
	w, err := p.Window(now, loc)
	return analysis.Window(w), asUsage(err)
}

// fetchWindow is ReportWindow for a fetch from a live source, whose --since
// reaches up to now.
func fetchWindow(p config.Period, now time.Time, loc *time.Location) (analysis.Window, error) {
	w, err := p.FetchWindow(now, loc)
	return analysis.Window(w), asUsage(err)
}
