package ingest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/finops-oss/finops"
)

// Bounds that keep a summary's memory independent of the file's length.
const (
	maxCurrencies      = 64
	maxTrackedGPUs     = 1 << 16
	spacingReservoirSz = 4096
)

// summarizer fills a Summary from the records as they go to the sink.
type summarizer struct {
	name       string // the file, for warnings about the whole of it
	sum        *Summary
	currencies map[string]bool
	spacing    *spacingEstimator
	fallbacks  []*fallbackTally // in the order first seen

	total, billed decSum // the Summary's TotalCost and BilledCost, set by finish
}

func newSummarizer(format, kind string) *summarizer {
	s := &summarizer{sum: &Summary{Format: format, Kind: kind}, currencies: map[string]bool{}}
	if kind == KindUtilization {
		s.spacing = newSpacingEstimator()
	}
	return s
}

func (s *summarizer) period(start, end time.Time) { s.sum.Extend(start, end) }

// Extend widens the summary's period to cover [start, end].
func (s *Summary) Extend(start, end time.Time) {
	if s.PeriodStart.IsZero() || start.Before(s.PeriodStart) {
		s.PeriodStart = start
	}
	if end.After(s.PeriodEnd) {
		s.PeriodEnd = end
	}
}

func (s *summarizer) billing(l *finops.BillingLine) {
	s.sum.Rows++
	s.period(l.ChargeStart, l.ChargeEnd)
	if c, ok := l.Cost(); ok {
		s.total.add(c)
	}
	if l.BilledCost != nil {
		s.billed.add(*l.BilledCost)
		if l.EffectiveCost == nil {
			s.sum.EffectiveFromBilled++
		}
	}
	if l.Currency != "" && !s.currencies[l.Currency] && len(s.currencies) < maxCurrencies {
		s.currencies[l.Currency] = true
		s.sum.Currencies = append(s.sum.Currencies, l.Currency)
	}
	if l.IsGPUUsage() {
		s.sum.GPULines++
	}
}

func (s *summarizer) sample(x *finops.GPUSample) {
	s.sum.Rows++
	s.period(x.Time, x.Time)
	s.spacing.add(x.GPUKey(), x.Time)
}

func (s *summarizer) task(t *finops.TaskRun) {
	s.sum.Rows++
	s.period(t.Start, t.End)
}

// reject counts perr among the file's refused records; the one beyond
// maxBad ends the file, and comes back.
func (s *summarizer) reject(perr *ParseError, maxBad int) error {
	s.sum.Rejected = append(s.sum.Rejected, perr)
	if len(s.sum.Rejected) > maxBad {
		return perr
	}
	return nil
}

// noGoodRow refuses a file that had rows and read not one of them: every
// one was bad. --max-bad-rows allows a few bad rows in a good file; it never
// turns a file of bad rows into "imported, 0 rows". nil when a row was read,
// or when none was bad (an empty export, a month without usage).
func noGoodRow(name string, s *Summary) *ParseError {
	if s == nil || s.Rows > 0 || len(s.Rejected) == 0 {
		return nil
	}
	n := fmt.Sprintf("all %d rows are bad", len(s.Rejected))
	if len(s.Rejected) == 1 {
		n = "its one row is bad"
	}
	if s.Skipped > 0 {
		n += fmt.Sprintf(" (and %d skipped: not charges)", s.Skipped)
	}
	return &ParseError{File: name, Msg: fmt.Sprintf("not one row could be read: %s (the first: %v); "+
		"finops refuses a file without one good row, whatever --max-bad-rows allows: correct the rows or the export",
		n, s.Rejected[0])}
}

func (s *summarizer) finish() *Summary {
	s.sum.TotalCost, s.sum.BilledCost = s.total.value(), s.billed.value()
	s.warnFallbacks()
	slices.Sort(s.sum.Currencies)
	if s.spacing != nil {
		s.sum.SampleInterval = s.spacing.median()
	}
	return s.sum
}

// spacingEstimator estimates the median spacing between consecutive samples
// of one GPU from a fixed-size uniform reservoir of spacings, so a log of a
// million samples needs no more memory than one of ten thousand.
type spacingEstimator struct {
	last map[string]time.Time
	res  []time.Duration
	seen int
	rng  *rand.Rand
}

func newSpacingEstimator() *spacingEstimator {
	// A fixed seed: the same file always gives the same interval.
	return &spacingEstimator{last: map[string]time.Time{}, rng: rand.New(rand.NewPCG(1, 2))}
}

func (e *spacingEstimator) add(key string, t time.Time) {
	prev, ok := e.last[key]
	if !ok && len(e.last) >= maxTrackedGPUs {
		return
	}
	e.last[key] = t
	// Logs appended from several runs go back in time between runs; only
	// forward steps are sampling intervals.
	if !ok || !t.After(prev) {
		return
	}
	d := t.Sub(prev)
	e.seen++
	if len(e.res) < spacingReservoirSz {
		e.res = append(e.res, d)
	} else if j := e.rng.IntN(e.seen); j < spacingReservoirSz {
		e.res[j] = d
	}
}

func (e *spacingEstimator) median() time.Duration {
	if len(e.res) == 0 {
		return 0
	}
	s := slices.Clone(e.res)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
