package main

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/config"
)

var isoWeekRE = regexp.MustCompile(`^(\d{4})-W(\d{2})$`)

// The years a report may name. A window outside them is a typo (0000-01-01),
// and one that long would only be clipped to the data anyway.
const minYear, maxYear = 2000, 2100

// checkYear refuses a date a flag names outside [minYear, maxYear].
func checkYear(flag, value string, y int) error {
	if y < minYear || y > maxYear {
		return usagef("%s %q: the year must be between %d and %d", flag, value, minYear, maxYear)
	}
	return nil
}

// isoWeek returns ISO week w of year y as [Monday 00:00, next Monday 00:00) in loc.
func isoWeek(y, w int, loc *time.Location) (analysis.Window, error) {
	// January 4th is always in week 1.
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, loc)
	monday := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
	start := monday.AddDate(0, 0, 7*(w-1))
	if gy, gw := start.ISOWeek(); gy != y || gw != w {
		return analysis.Window{}, usagef("week %d-W%02d does not exist", y, w)
	}
	end := start.AddDate(0, 0, 7)
	return analysis.Window{Start: start.UTC(), End: end.UTC(), Label: fmt.Sprintf("%d-W%02d", y, w)}, nil
}

// lastCompleteWeek is the ISO week before the one containing now.
func lastCompleteWeek(now time.Time, loc *time.Location) analysis.Window {
	y, w := now.In(loc).AddDate(0, 0, -7).ISOWeek()
	win, _ := isoWeek(y, w, loc)
	return win
}

// windowFlags are the report-period flags shared by report and run.
type windowFlags struct {
	since, week, from, to string
}

// resolve picks the window: --week, --since, --from/--to, default the last
// complete ISO week.
func (f windowFlags) resolve(now time.Time, loc *time.Location) (analysis.Window, error) {
	set := 0
	for _, v := range []string{f.since, f.week, f.from + f.to} {
		if v != "" {
			set++
		}
	}
	if set > 1 {
		return analysis.Window{}, usagef("give one of --since, --week or --from/--to")
	}
	switch {
	case f.week != "" && f.week != "last":
		m := isoWeekRE.FindStringSubmatch(f.week)
		if m == nil {
			return analysis.Window{}, usagef("--week %q: want an ISO week like 2026-W47, or last", f.week)
		}
		y, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		if err := checkYear("--week", f.week, y); err != nil {
			return analysis.Window{}, err
		}
		return isoWeek(y, w, loc)
	case f.since != "":
		d, err := config.ParseDuration(f.since)
		if err != nil || d <= 0 {
			return analysis.Window{}, usagef("--since %q: want e.g. 30d, 2w or 36h", f.since)
		}
		end := now.Truncate(time.Minute)
		start := end.Add(-d)
		return analysis.Window{Start: start.UTC(), End: end.UTC(),
			Label: start.In(loc).Format("2006-01-02") + "_" + end.In(loc).Format("2006-01-02")}, nil
	case f.from != "" || f.to != "":
		if f.from == "" || f.to == "" {
			return analysis.Window{}, usagef("--from and --to go together")
		}
		from, err := time.ParseInLocation("2006-01-02", f.from, loc)
		if err != nil {
			return analysis.Window{}, usagef("--from %q: want a date like 2026-11-01", f.from)
		}
		to, err := time.ParseInLocation("2006-01-02", f.to, loc)
		if err != nil {
			return analysis.Window{}, usagef("--to %q: want a date like 2026-11-30", f.to)
		}
		if err := checkYear("--from", f.from, from.Year()); err != nil {
			return analysis.Window{}, err
		}
		if err := checkYear("--to", f.to, to.Year()); err != nil {
			return analysis.Window{}, err
		}
		if to.Before(from) {
			return analysis.Window{}, usagef("--to %s is before --from %s", f.to, f.from)
		}
		// --to is inclusive: the report covers that whole day.
		return analysis.Window{Start: from.UTC(), End: to.AddDate(0, 0, 1).UTC(), Label: f.from + "_" + f.to}, nil
	default:
		return lastCompleteWeek(now, loc), nil
	}
}
