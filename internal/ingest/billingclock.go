package ingest

import (
	"fmt"
	"time"

	"github.com/finops-oss/finops"
)

// A billing line whose charge period starts well after now is ClockGuard's
// case for bills: an export with a wrong year, or this host's clock behind.
// Unlike a sample, the line is kept: when the host's clock is the one that
// is wrong, refusing would drop real bills, and a charge cannot be re-sent
// the way a sample is re-collected. Nor is it taken silently: BillingClock
// warns once per file, naming how many, the earliest start, the clock and
// what to check (the report's data-quality box repeats it).
//
// Only the start is checked. A month-to-date export may carry charge
// periods that end at the month's end, and a weekly or monthly rental's
// period may end weeks ahead: an end after now is ordinary.

// MaxChargeStartAhead is how far past now a charge period may start: a
// bill's day boundary in another time zone, or a provider's clock a little
// ahead, is ordinary.
const MaxChargeStartAhead = 24 * time.Hour

// BillingClock wraps a Sink for one billing file.
type BillingClock struct {
	Sink
	name string
	now  time.Time

	ahead        int
	earliest     time.Time
	earliestLine int
}

// NewBillingClock watches sink for the file name for billing lines whose
// charge period starts more than MaxChargeStartAhead after now.
func NewBillingClock(sink Sink, name string, now time.Time) *BillingClock {
	return &BillingClock{Sink: sink, name: name, now: now}
}

// Billing implements Sink: every line is passed on.
func (c *BillingClock) Billing(l *finops.BillingLine) error {
	if l.ChargeStart.After(c.now.Add(MaxChargeStartAhead)) {
		c.ahead++
		if c.earliest.IsZero() || l.ChargeStart.Before(c.earliest) {
			c.earliest, c.earliestLine = l.ChargeStart, l.Line
		}
	}
	return c.Sink.Billing(l)
}

// Finish adds one warning to the file's summary when any line started
// after now plus MaxChargeStartAhead; it is located at the line of the
// earliest such start.
func (c *BillingClock) Finish(sum *Summary) {
	if sum == nil || c.ahead == 0 {
		return
	}
	lines := "1 line's charge period starts"
	if c.ahead > 1 {
		lines = fmt.Sprintf("%d lines' charge periods start", c.ahead)
	}
	w := &ParseError{File: c.name, Line: c.earliestLine, Msg: fmt.Sprintf(
		"%s more than a day after this host's clock (%s), the earliest at %s: "+
			"check the export's dates (a wrong year?) and this host's clock (NTP, chrony); "+
			"finops kept them as billed rather than drop real charges",
		lines, c.now.UTC().Format(time.RFC3339), c.earliest.UTC().Format(time.RFC3339))}
	// A file whose lines already gave maxWarnings warnings would keep only
	// the count of this one, hidden in "N more warnings like these": it
	// takes the last kept one's place instead.
	if len(sum.Warnings) >= maxWarnings {
		sum.WarningCount++
		sum.Warnings[len(sum.Warnings)-1] = w
		return
	}
	sum.Warn(w)
}
