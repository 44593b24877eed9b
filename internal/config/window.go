package config

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Window is a period [Start, End) and its label ("2026-W47",
// "2026-10-31_2026-11-30"): the fields of Window, in its order, so
// that a caller converts one into the other (Window(w)) and config
// imports nothing of the analysis.
type Window struct {
	Start time.Time
	End   time.Time
	Label string
}

// Period is a report's or a fetch's period as the command line gives it:
// --since, --week (an ISO week, or last), or --from and --to (dates,
// inclusive). At most one of them is set. Its errors name the flag: the
// CLI reports them as usage errors.
type Period struct {
	Since, Week, From, To string
}

var isoWeekRE = regexp.MustCompile(`^(\d{4})-W(\d{2})$`)

// The years a report may name. A window outside them is a typo (0000-01-01),
// and one that long would only be clipped to the data anyway.
const minYear, maxYear = 2000, 2100

// checkYear refuses a date a flag names outside [minYear, maxYear].
func checkYear(flag, value string, y int) error {
	if y < minYear || y > maxYear {
		return fmt.Errorf("%s %q: the year must be between %d and %d", flag, value, minYear, maxYear)
	}
	return nil
}

// isoWeek returns ISO week w of year y as [Monday 00:00, next Monday 00:00) in loc.
func isoWeek(y, w int, loc *time.Location) (Window, error) {
	// January 4th is always in week 1.
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, loc)
	monday := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
	start := monday.AddDate(0, 0, 7*(w-1))
	if gy, gw := start.ISOWeek(); gy != y || gw != w {
		return Window{}, fmt.Errorf("week %d-W%02d does not exist", y, w)
	}
	end := start.AddDate(0, 0, 7)
	return Window{Start: start.UTC(), End: end.UTC(), Label: fmt.Sprintf("%d-W%02d", y, w)}, nil
}

// lastCompleteWeek is the ISO week before the one containing now.
func lastCompleteWeek(now time.Time, loc *time.Location) Window {
	y, w := now.In(loc).AddDate(0, 0, -7).ISOWeek()
	win, _ := isoWeek(y, w, loc)
	return win
}

// sinceDays resolves a report's --since: the last N complete days in loc,
// ending at today's 00:00. A report of whole days matches its header (which
// names dates), two runs on one day cover the same window, and the label
// names the first and last day covered, as --from/--to would.
func sinceDays(since string, now time.Time, loc *time.Location) (Window, error) {
	d, err := ParseDuration(since)
	if err != nil || d <= 0 {
		return Window{}, fmt.Errorf("--since %q: want a number of days like 30d or 2w", since)
	}
	if d%(24*time.Hour) != 0 {
		return Window{}, fmt.Errorf("--since %q: a report covers whole days (the last N complete days, ending at today's 00:00 %s); give e.g. %dd",
			since, loc, (d+24*time.Hour-1)/(24*time.Hour))
	}
	y, m, day := now.In(loc).Date()
	end := time.Date(y, m, day, 0, 0, 0, 0, loc)
	start := end.AddDate(0, 0, -int(d/(24*time.Hour)))
	return Window{Start: start.UTC(), End: end.UTC(),
		Label: start.Format("2006-01-02") + "_" + end.AddDate(0, 0, -1).Format("2006-01-02")}, nil
}

// sinceNow resolves a fetch's --since: the duration up to now, today's
// partial day included (ingest prometheus stores whole days itself).
func sinceNow(since string, now time.Time, loc *time.Location) (Window, error) {
	d, err := ParseDuration(since)
	if err != nil || d <= 0 {
		return Window{}, fmt.Errorf("--since %q: want e.g. 7d, 2w or 36h", since)
	}
	end := now.Truncate(time.Minute)
	start := end.Add(-d)
	return Window{Start: start.UTC(), End: end.UTC(),
		Label: start.In(loc).Format("2006-01-02") + "_" + end.In(loc).Format("2006-01-02")}, nil
}

// Window is a report's window at now in loc: --week, --since (whole days,
// see sinceDays), --from/--to, default the last complete ISO week.
func (p Period) Window(now time.Time, loc *time.Location) (Window, error) {
	return p.window(now, loc, sinceDays)
}

// FetchWindow is Window for a fetch from a live source, whose --since
// reaches up to now.
func (p Period) FetchWindow(now time.Time, loc *time.Location) (Window, error) {
	return p.window(now, loc, sinceNow)
}

func (p Period) window(now time.Time, loc *time.Location,
	since func(string, time.Time, *time.Location) (Window, error)) (Window, error) {
	set := 0
	for _, v := range []string{p.Since, p.Week, p.From + p.To} {
		if v != "" {
			set++
		}
	}
	if set > 1 {
		return Window{}, fmt.Errorf("give one of --since, --week or --from/--to")
	}
	switch {
	case p.Week != "" && p.Week != "last":
		m := isoWeekRE.FindStringSubmatch(p.Week)
		if m == nil {
			return Window{}, fmt.Errorf("--week %q: want an ISO week like 2026-W47, or last", p.Week)
		}
		y, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		if err := checkYear("--week", p.Week, y); err != nil {
			return Window{}, err
		}
		return isoWeek(y, w, loc)
	case p.Since != "":
		return since(p.Since, now, loc)
	case p.From != "" || p.To != "":
		if p.From == "" || p.To == "" {
			return Window{}, fmt.Errorf("--from and --to go together")
		}
		from, err := time.ParseInLocation("2006-01-02", p.From, loc)
		if err != nil {
			return Window{}, fmt.Errorf("--from %q: want a date like 2026-11-01", p.From)
		}
		to, err := time.ParseInLocation("2006-01-02", p.To, loc)
		if err != nil {
			return Window{}, fmt.Errorf("--to %q: want a date like 2026-11-30", p.To)
		}
		if err := checkYear("--from", p.From, from.Year()); err != nil {
			return Window{}, err
		}
		if err := checkYear("--to", p.To, to.Year()); err != nil {
			return Window{}, err
		}
		if to.Before(from) {
			return Window{}, fmt.Errorf("--to %s is before --from %s", p.To, p.From)
		}
		// --to is inclusive: the report covers that whole day.
		return Window{Start: from.UTC(), End: to.AddDate(0, 0, 1).UTC(), Label: p.From + "_" + p.To}, nil
	default:
		return lastCompleteWeek(now, loc), nil
	}
}

var quarterRE = regexp.MustCompile(`^(\d{4})-?[Qq]([1-4])$`)

// Quarter turns "2026Q4" (or "2026-Q4") into the quarter and the quarter
// before it, each [first day 00:00, first day of the next quarter 00:00) in loc.
func Quarter(s string, loc *time.Location) (q, prev Window, err error) {
	mt := quarterRE.FindStringSubmatch(s)
	if mt == nil {
		return q, prev, fmt.Errorf("--quarter %q: want a quarter like 2026Q4", s)
	}
	y, _ := strconv.Atoi(mt[1])
	n, _ := strconv.Atoi(mt[2])
	if err := checkYear("--quarter", s, y); err != nil {
		return q, prev, err
	}
	start := time.Date(y, time.Month(3*(n-1)+1), 1, 0, 0, 0, 0, loc)
	q = Window{Start: start.UTC(), End: start.AddDate(0, 3, 0).UTC(), Label: fmt.Sprintf("%dQ%d", y, n)}
	py, pn := y, n-1
	if pn == 0 {
		py, pn = y-1, 4
	}
	prev = Window{Start: start.AddDate(0, -3, 0).UTC(), End: start.UTC(), Label: fmt.Sprintf("%dQ%d", py, pn)}
	return q, prev, nil
}

// CheckYear refuses a date a flag names outside the years a report may
// name, as the period flags do (finops advice snooze --until).
func CheckYear(flag, value string, y int) error { return checkYear(flag, value, y) }

// IsWeekLabel reports whether s is an ISO week's label, such as 2026-W48.
func IsWeekLabel(s string) bool { return isoWeekRE.MatchString(s) }
