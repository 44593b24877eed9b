package ingest

import (
	"errors"
	"fmt"
	"time"
)

// Wall clocks in a zone with daylight saving: the hour a clock falls back is
// written twice (New York, 1 Nov 2026: 01:00–01:59 in EDT, then again in EST)
// and the hour it springs forward never. time.Date picks one of the two
// instants of a repeated wall clock, and which one depends on the zone's side
// of UTC (the summer one west of UTC, the winter one east of it), so every
// reader of local times resolves them here instead, the same way.

// fallBackReadings returns the two instants a wall clock in loc names when it
// names two: early (the first pass, summer time) and the shift d to the second
// (early + d). t is either instant, as time.Date chose it; ok is false when
// the wall clock is not ambiguous.
func fallBackReadings(t time.Time, loc *time.Location) (early time.Time, d time.Duration, ok bool) {
	wall := t.In(loc)
	_, off := wall.Zone()
	same := func(o time.Time) bool {
		ow := o.In(loc)
		_, oo := ow.Zone()
		return oo != off && ow.Year() == wall.Year() && ow.YearDay() == wall.YearDay() &&
			ow.Hour() == wall.Hour() && ow.Minute() == wall.Minute() && ow.Second() == wall.Second()
	}
	// A transition's offsets differ by 30 minutes to 2 hours (Lord Howe: 30
	// minutes; most zones: one hour).
	for _, d := range []time.Duration{30 * time.Minute, time.Hour, 90 * time.Minute, 2 * time.Hour} {
		if same(t.Add(-d)) {
			return t.Add(-d), d, true
		}
		if same(t.Add(d)) {
			return t, d, true
		}
	}
	return t, 0, false
}

// logClock reads the wall clocks of a log that runs forward (nvidia-smi, the
// NVML spool): a repeated wall clock is its first pass unless the previous
// sample is already well past that (more than half the shift: the clock has
// fallen back; a few minutes: an NTP step back within the first pass).
type logClock struct {
	loc  *time.Location
	last time.Time
}

func (c *logClock) resolve(t time.Time, local bool) time.Time {
	if local {
		if e, d, ok := fallBackReadings(t, c.loc); ok {
			t = e
			if !c.last.IsZero() && c.last.Sub(e) > d/2 {
				t = e.Add(d)
			}
		}
	}
	c.last = t
	return t
}

// resolveSpan reads a span's two wall clocks (a rental bill's line, a task
// run), which carry no order to lean on: of the readings that give an end
// after the start, one is taken when it is the only one; otherwise the first
// pass of each, and ambiguous says the file did not tell.
func resolveSpan(start, end time.Time, startLocal, endLocal bool, loc *time.Location) (s, e time.Time, ambiguous bool) {
	readings := func(t time.Time, local bool) []time.Time {
		if local {
			if early, d, ok := fallBackReadings(t, loc); ok {
				return []time.Time{early, early.Add(d)}
			}
		}
		return []time.Time{t}
	}
	starts, ends := readings(start, startLocal), readings(end, endLocal)
	n := 0
	for _, a := range starts {
		for _, b := range ends {
			if b.After(a) {
				if n == 0 {
					s, e = a, b
				}
				n++
			}
		}
	}
	if n == 0 { // no reading gives a span: the caller refuses it
		return starts[0], ends[0], false
	}
	return s, e, n > 1
}

// timeExpect is what a bad local timestamp's error says was expected: the
// format, or for a wall clock its zone skips, that the zone looks wrong.
func timeExpect(err error, example string, loc *time.Location) string {
	if errors.Is(err, errSkippedTime) && loc != nil {
		return "a time that exists in " + loc.String() +
			" (clocks skip it when daylight saving starts: is the file's time zone right?)"
	}
	return example
}

// warnAmbiguous says how many spans resolveSpan had to guess, so that a guess
// is never silent.
func warnAmbiguous(s *Summary, file string, n int, loc *time.Location, what string) {
	if n == 0 {
		return
	}
	s.Warn(&ParseError{File: file, Msg: fmt.Sprintf("%d %s start or end in the hour the clocks fell back in %s and could be either pass: "+
		"read as the first (summer time); export times with an offset (2026-11-01T01:30:00-04:00) to be exact", n, what, loc)})
}
