package analysis

import (
	"fmt"
	"time"
)

// clipSlack is how much of a window may hold no data before it is clipped: a
// week, so that a normal report keeps the period it was asked for when a
// billing export lags a few days or telemetry starts mid-week.
const clipSlack = 7 * 24 * time.Hour

// clipToData returns in with its window clipped to the local days its records
// span, and the note saying so ("" when nothing was clipped). Every minute
// grid, the day list and the hourly rows are sized by the window, so a window
// far longer than the data (--since 36500d on a database of four lines) would
// otherwise cost memory and time for minutes nothing was billed in. Only a
// side with more than clipSlack of no data is clipped; a window holding no
// data at all keeps its last local day. The lookback keeps its length and
// ends with the window.
func clipToData(in *Input, loc *time.Location) (*Input, string) {
	w := in.Window
	first, last, ok := dataExtent(in)
	start, end := w.Start, w.End
	if ok && first.Sub(w.Start) > clipSlack {
		start = maxTime(w.Start, localMidnight(first, loc))
	}
	if ok && w.End.Sub(last) > clipSlack {
		end = minTime(w.End, nextLocalMidnight(last, loc))
	}
	empty := !ok || !end.After(start)
	if empty {
		if w.End.Sub(w.Start) <= clipSlack {
			return in, ""
		}
		start, end = maxTime(w.Start, localMidnight(w.End.Add(-time.Nanosecond), loc)), w.End
	}
	if start.Equal(w.Start) && end.Equal(w.End) {
		return in, ""
	}
	out := *in
	out.Window.Start, out.Window.End = start, end
	if !in.Lookback.Start.IsZero() && end.Before(w.End) {
		out.Lookback = Window{Start: end.Add(-in.Lookback.End.Sub(in.Lookback.Start)), End: end, Label: in.Lookback.Label}
	}
	day := func(t time.Time) string { return t.In(loc).Format("2006-01-02") }
	asked := day(w.Start) + " to " + day(w.End.Add(-time.Nanosecond))
	if empty {
		return &out, fmt.Sprintf("report window %s holds no billing lines, telemetry or tasks: the report covers its last day, %s",
			asked, day(start))
	}
	return &out, fmt.Sprintf("report window %s is longer than the data: the report covers %s to %s, the days with billing lines, telemetry or tasks",
		asked, day(start), day(end.Add(-time.Nanosecond)))
}

// dataExtent is the earliest start and the latest end of in's lines (held or
// streamed), GPU samples and task runs; ok is false when it has none.
func dataExtent(in *Input) (first, last time.Time, ok bool) {
	add := func(s, e time.Time) {
		if e.Before(s) {
			e = s
		}
		if !ok || s.Before(first) {
			first = s
		}
		if !ok || e.After(last) {
			last = e
		}
		ok = true
	}
	if ls := in.LineStream; ls != nil {
		if ls.HasLines {
			add(ls.First, ls.Last)
		}
	} else {
		for i := range in.Lines {
			add(in.Lines[i].ChargeStart, in.Lines[i].ChargeEnd)
		}
	}
	for i := range in.GPUs {
		s := &in.GPUs[i]
		if first, last, ok := s.Span(); ok {
			add(time.Unix(first*60, 0), time.Unix((last+maxCover+1)*60, 0))
		}
	}
	for i := range in.TaskRuns {
		add(in.TaskRuns[i].Start, in.TaskRuns[i].End)
	}
	return first.UTC(), last.UTC(), ok
}

// localMidnight is the start of t's day in loc.
func localMidnight(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc).UTC()
}

// nextLocalMidnight is the first local midnight at or after t.
func nextLocalMidnight(t time.Time, loc *time.Location) time.Time {
	m := localMidnight(t, loc)
	if m.Equal(t) {
		return m
	}
	l := m.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, loc).UTC()
}
