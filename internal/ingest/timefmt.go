package ingest

import (
	"errors"
	"strings"
	"time"
)

var (
	errNotTime     = errors.New("not a timestamp")
	errSkippedTime = errors.New("a wall clock the zone skips")
)

// parseTime reads the timestamp shapes real exports use, by hand rather than
// by trying time.Parse layouts one after another (it runs for every row):
//
//	2024-09-18 22:00:00    2024-09-18T22:00:00Z    2024-09-18T22:00:00.123+08:00
//	2026/07/14 08:12:53.353 (nvidia-smi)    2006-01-02 15:04    2006-01-02
//
// A timestamp without offset is in loc. The result is UTC.
func parseTime(s string, loc *time.Location) (time.Time, error) {
	t, _, err := parseTimeIn(s, loc)
	return t, err
}

// parseTimeIn is parseTime that also says whether the timestamp was read as
// a wall clock in loc (it had no offset of its own).
func parseTimeIn(s string, loc *time.Location) (time.Time, bool, error) {
	p := timeScanner{s: s}
	year, ok := p.digits(4, 4)
	if !ok {
		return time.Time{}, false, errNotTime
	}
	sep := p.peek()
	if sep != '-' && sep != '/' {
		return time.Time{}, false, errNotTime
	}
	p.i++
	month, ok1 := p.digits(1, 2)
	ok2 := p.expect(sep)
	day, ok3 := p.digits(1, 2)
	if !ok1 || !ok2 || !ok3 {
		return time.Time{}, false, errNotTime
	}
	clock := false
	if c := p.peek(); c == ' ' || c == 'T' || c == 't' {
		p.i++
		clock = true
	}
	return p.clockOn(year, month, day, clock, loc)
}

// clockOn reads what follows a date that the caller has read, in whatever
// order its format writes one: a time of day when clock says one follows,
// then an optional zone (see zone). The result is UTC.
func (p *timeScanner) clockOn(year, month, day int, clock bool, loc *time.Location) (time.Time, bool, error) {
	var hour, minute, sec, nsec int
	if clock {
		var ok bool
		if hour, minute, sec, nsec, ok = p.timeOfDay(); !ok {
			return time.Time{}, false, errNotTime
		}
	}
	zone, err := p.zone(loc)
	if err != nil {
		return time.Time{}, false, err
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false, errNotTime
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, zone)
	local := strings.TrimSpace(p.s[p.i:]) == "" && loc != nil
	// A wall clock in the hour a daylight-saving clock skips does not exist:
	// time.Date moves it by the shift, silently. No clock in that zone writes
	// it, so the zone given is likely wrong; say so rather than guess.
	if local && (t.Hour() != hour || t.Minute() != minute) {
		return time.Time{}, false, errSkippedTime
	}
	return t.UTC(), local, nil
}

// timeOfDay reads H:MM or HH:MM, then optionally :SS and a fraction
// after '.' or ',' (to the nanosecond), after any spaces.
func (p *timeScanner) timeOfDay() (hour, minute, sec, nsec int, ok bool) {
	for p.peek() == ' ' {
		p.i++
	}
	var okH, okC, okM bool
	hour, okH = p.digits(1, 2)
	okC = p.expect(':')
	minute, okM = p.digits(2, 2)
	if !okH || !okC || !okM {
		return 0, 0, 0, 0, false
	}
	if p.peek() != ':' {
		return hour, minute, 0, 0, true
	}
	p.i++
	if sec, ok = p.digits(2, 2); !ok {
		return 0, 0, 0, 0, false
	}
	if c := p.peek(); c == '.' || c == ',' {
		p.i++
		if nsec, ok = p.fraction(); !ok {
			return 0, 0, 0, 0, false
		}
	}
	return hour, minute, sec, nsec, true
}

// fraction reads a second's fraction's digits as nanoseconds; false when
// there is no digit.
func (p *timeScanner) fraction() (int, bool) {
	start, nsec, scale := p.i, 0, 100000000
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		nsec += int(p.s[p.i]-'0') * scale
		scale /= 10
		p.i++
	}
	return nsec, p.i != start
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

type timeScanner struct {
	s string
	i int
}

func (p *timeScanner) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *timeScanner) expect(c byte) bool {
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

func (p *timeScanner) digits(min, max int) (int, bool) {
	n, start := 0, p.i
	for p.i < len(p.s) && p.i-start < max && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		n = n*10 + int(p.s[p.i]-'0')
		p.i++
	}
	return n, p.i-start >= min
}

// zone reads what follows the clock: nothing (loc), Z, UTC/GMT, or a numeric
// offset +08:00, +0800, +08.
func (p *timeScanner) zone(loc *time.Location) (*time.Location, error) {
	rest := strings.TrimLeft(p.s[p.i:], " ")
	switch rest {
	case "":
		if loc == nil {
			return time.UTC, nil
		}
		return loc, nil
	case "Z", "z", "UTC", "GMT":
		return time.UTC, nil
	}
	rest = strings.TrimPrefix(strings.TrimPrefix(rest, "UTC"), "GMT")
	sign := 1
	switch rest[0] {
	case '+':
	case '-':
		sign = -1
	default:
		return nil, errNotTime
	}
	q := timeScanner{s: rest, i: 1}
	h, ok := q.digits(2, 2)
	if !ok || h > 23 {
		return nil, errNotTime
	}
	q.expect(':')
	m := 0
	if q.i < len(q.s) {
		if m, ok = q.digits(2, 2); !ok || m > 59 {
			return nil, errNotTime
		}
	}
	if q.i != len(q.s) {
		return nil, errNotTime
	}
	off := sign * (h*3600 + m*60)
	if off == 0 {
		return time.UTC, nil
	}
	return time.FixedZone("", off), nil
}
