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

// sinceDays resolves a report's --since: the last N complete days in loc,
// ending at today's 00:00. A report of whole days matches its header (which
// names dates), two runs on one day cover the same window, and the label
// names the first and last day covered, as --from/--to would.
func sinceDays(since string, now time.Time, loc *time.Location) (analysis.Window, error) {
	d, err := config.ParseDuration(since)
	if err != nil || d <= 0 {
		return analysis.Window{}, usagef("--since %q: want a number of days like 30d or 2w", since)
	}
	if d%(24*time.Hour) != 0 {
		return analysis.Window{}, usagef("--since %q: a report covers whole days (the last N complete days, ending at today's 00:00 %s); give e.g. %dd",
			since, loc, (d+24*time.Hour-1)/(24*time.Hour))
	}
	y, m, day := now.In(loc).Date()
	end := time.Date(y, m, day, 0, 0, 0, 0, loc)
	start := end.AddDate(0, 0, -int(d/(24*time.Hour)))
	return analysis.Window{Start: start.UTC(), End: end.UTC(),
		Label: start.Format("2006-01-02") + "_" + end.AddDate(0, 0, -1).Format("2006-01-02")}, nil
}

// sinceNow resolves a fetch's --since: the duration up to now, today's
// partial day included (ingest prometheus stores whole days itself).
func sinceNow(since string, now time.Time, loc *time.Location) (analysis.Window, error) {
	d, err := config.ParseDuration(since)
	if err != nil || d <= 0 {
		return analysis.Window{}, usagef("--since %q: want e.g. 7d, 2w or 36h", since)
	}
	end := now.Truncate(time.Minute)
	start := end.Add(-d)
	return analysis.Window{Start: start.UTC(), End: end.UTC(),
		Label: start.In(loc).Format("2006-01-02") + "_" + end.In(loc).Format("2006-01-02")}, nil
}

// windowFlags are the report-period flags shared by report and run.
type windowFlags struct {
	since, week, from, to string
}

// resolve picks a report's window: --week, --since (whole days, see
// sinceDays), --from/--to, default the last complete ISO week.
func (f windowFlags) resolve(now time.Time, loc *time.Location) (analysis.Window, error) {
	return f.resolveWith(now, loc, sinceDays)
}

// resolveFetch is resolve for a fetch from a live source, whose --since
// reaches up to now.
func (f windowFlags) resolveFetch(now time.Time, loc *time.Location) (analysis.Window, error) {
	return f.resolveWith(now, loc, sinceNow)
}

func (f windowFlags) resolveWith(now time.Time, loc *time.Location,
	since func(string, time.Time, *time.Location) (analysis.Window, error)) (analysis.Window, error) {
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
		return since(f.since, now, loc)
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
