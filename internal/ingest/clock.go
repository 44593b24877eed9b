package ingest

import (
	"fmt"
	"time"

	"github.com/finops-oss/finops"
)

// A host's clock can be wrong: a year ahead after a bad RTC, or back in
// 1970 or 2000 after a reset. Samples it dates so are not trusted — a
// sample a year ahead would make its GPU look monitored next year and
// never idle now — nor dropped without a word (metrics.md §Coverage):
// ClockGuard refuses them and warns once per file, naming how many, their
// range and what to fix (the report's data-quality box repeats it); a file
// whose every sample is refused is refused whole.

// MaxClockAhead is how far past now a sample may be dated: a collector's
// clock a little ahead of this machine's is ordinary.
const MaxClockAhead = time.Hour

// earliestSample is the first instant a sample may have: before it, the
// host's clock was reset.
var earliestSample = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// ClockGuard wraps a Sink for one telemetry file.
type ClockGuard struct {
	Sink
	name string
	now  time.Time

	kept, ahead, behind int
	firstLine           int
	aheadMax, behindMin time.Time
	keptMin, keptMax    time.Time // the kept samples' extent
}

// NewClockGuard guards sink for the file name against samples dated more
// than MaxClockAhead after now, or before 2000.
func NewClockGuard(sink Sink, name string, now time.Time) *ClockGuard {
	return &ClockGuard{Sink: sink, name: name, now: now}
}

// Sample implements Sink.
func (g *ClockGuard) Sample(s *finops.GPUSample) error {
	switch {
	case s.Time.After(g.now.Add(MaxClockAhead)):
		g.ahead++
		if s.Time.After(g.aheadMax) {
			g.aheadMax = s.Time
		}
	case s.Time.Before(earliestSample):
		g.behind++
		if g.behindMin.IsZero() || s.Time.Before(g.behindMin) {
			g.behindMin = s.Time
		}
	default:
		g.kept++
		if g.keptMin.IsZero() || s.Time.Before(g.keptMin) {
			g.keptMin = s.Time
		}
		if s.Time.After(g.keptMax) {
			g.keptMax = s.Time
		}
		return g.Sink.Sample(s)
	}
	if g.firstLine == 0 {
		g.firstLine = s.Line
	}
	return nil
}

// Finish adds one warning to the file's summary naming what the guard
// refused; SamplesDropped stays the count of readings that are no sample
// (the messages print it as such). The summary's rows and period become the
// kept samples': a refused sample is not imported, so it is not counted
// as a row (one sample of 2099 read "3 rows … 2099-12-07" with 2 stored) and
// does not stretch the file's period, which the report's stale-telemetry
// check reads. It returns an error when the file had samples and every one
// was refused.
func (g *ClockGuard) Finish(sum *Summary) error {
	if sum == nil || g.ahead+g.behind == 0 {
		return nil
	}
	if refused := g.ahead + g.behind; sum.Rows >= refused {
		sum.Rows -= refused
	}
	if sum.Kind == KindUtilization && g.kept > 0 {
		sum.PeriodStart, sum.PeriodEnd = g.keptMin, g.keptMax
	}
	var why string
	switch {
	case g.ahead > 0 && g.behind > 0:
		why = fmt.Sprintf("%d samples dated after %s (up to %s) and %d before 2000 (from %s)", g.ahead,
			g.now.Add(MaxClockAhead).UTC().Format(time.RFC3339), g.aheadMax.UTC().Format(time.RFC3339), g.behind,
			g.behindMin.UTC().Format(time.RFC3339))
	case g.ahead > 0:
		why = fmt.Sprintf("%d samples dated after %s, up to %s: the host's clock runs ahead", g.ahead,
			g.now.Add(MaxClockAhead).UTC().Format(time.RFC3339), g.aheadMax.UTC().Format(time.RFC3339))
	default:
		why = fmt.Sprintf("%d samples dated before 2000 (from %s): the host's clock was reset", g.behind,
			g.behindMin.UTC().Format(time.RFC3339))
	}
	fix := "set the host's clock (NTP, chrony) and collect again; finops refused them rather than guess when they were taken"
	if g.kept == 0 {
		return &ParseError{File: g.name, Line: g.firstLine, Field: "timestamp",
			Msg: fmt.Sprintf("every sample is refused: %s; %s", why, fix)}
	}
	sum.Warn(&ParseError{File: g.name, Line: g.firstLine, Field: "timestamp", Msg: why + "; " + fix})
	return nil
}
