package main

import (
	"time"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/config"
)

// windowFlags are the report-period flags shared by report and run
// (config.Period).
type windowFlags struct {
	since, week, from, to string
}

func (f windowFlags) period() config.Period {
	return config.Period{Since: f.since, Week: f.week, From: f.from, To: f.to}
}

// resolve picks a report's window (config.Period.Window).
func (f windowFlags) resolve(now time.Time, loc *time.Location) (analysis.Window, error) {
	w, err := f.period().Window(now, loc)
	return w, asUsage(err)
}

// resolveFetch is resolve for a fetch from a live source, whose --since
// reaches up to now.
func (f windowFlags) resolveFetch(now time.Time, loc *time.Location) (analysis.Window, error) {
	w, err := f.period().FetchWindow(now, loc)
	return w, asUsage(err)
}
