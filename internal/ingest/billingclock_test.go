package ingest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

type billCountSink struct{ lines int }

func (c *billCountSink) Billing(*finops.BillingLine) error { c.lines++; return nil }
func (c *billCountSink) Sample(*finops.GPUSample) error    { return nil }
func (c *billCountSink) TaskRun(*finops.TaskRun) error     { return nil }

// TestBillingClock: lines whose charge period starts more than a day after
// now are kept and named in one warning, at the earliest such start's line;
// a period that only ends after now is ordinary.
func TestBillingClock(t *testing.T) {
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return now.Add(d) }
	day := 24 * time.Hour
	type period struct{ start, end time.Time }
	tests := []struct {
		name     string
		lines    []period
		wantWarn string // "" none
	}{
		// A month-to-date export's line for today, ending at December's
		// end, and a monthly rental from yesterday: neither starts ahead.
		{"ends ahead only", []period{{at(-3 * time.Hour), at(32 * day)}, {at(-day), at(30 * day)}}, ""},
		// Exactly a day ahead is not more than a day.
		{"starts a day ahead", []period{{at(day), at(2 * day)}}, ""},
		{"one a year ahead", []period{{at(-day), at(0)}, {time.Date(2027, 11, 23, 0, 0, 0, 0, time.UTC), time.Date(2027, 11, 30, 0, 0, 0, 0, time.UTC)}},
			"f.csv:3: 1 line's charge period starts more than a day after this host's clock (2026-11-30T03:00:00Z), " +
				"the earliest at 2027-11-23T00:00:00Z: check the export's dates (a wrong year?) and this host's clock (NTP, chrony)"},
		// Lines 2 and 4 start ahead; line 4 (Dec 3) is the earlier of the two.
		{"two ahead, the earliest later in the file", []period{{at(10 * day), at(11 * day)}, {at(0), at(day)}, {at(day + time.Minute), at(2 * day)}},
			"f.csv:4: 2 lines' charge periods start more than a day after this host's clock (2026-11-30T03:00:00Z), the earliest at 2026-12-01T03:01:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c billCountSink
			g := NewBillingClock(&c, "f.csv", now)
			for i, p := range tt.lines {
				if err := g.Billing(&finops.BillingLine{Line: i + 2, ChargeStart: p.start, ChargeEnd: p.end}); err != nil {
					t.Fatal(err)
				}
			}
			sum := &Summary{}
			g.Finish(sum)
			if c.lines != len(tt.lines) {
				t.Errorf("passed on %d lines, want all %d", c.lines, len(tt.lines))
			}
			switch {
			case tt.wantWarn == "" && sum.WarningCount != 0:
				t.Errorf("warnings %v, want none", sum.Warnings)
			case tt.wantWarn != "" && (sum.WarningCount != 1 || !strings.Contains(sum.Warnings[0].Error(), tt.wantWarn)):
				t.Errorf("warnings %v, want %q", sum.Warnings, tt.wantWarn)
			}
		})
	}
}

// TestBillingClockFullWarnings: in a file whose lines already gave as many
// warnings as a summary keeps, the clock's warning is still kept, in the
// last one's place, and counted.
func TestBillingClockFullWarnings(t *testing.T) {
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	sum := &Summary{}
	for i := range maxWarnings + 5 {
		sum.Warn(&ParseError{File: "f.csv", Line: i + 2, Msg: fmt.Sprintf("line warning %d", i)})
	}
	g := NewBillingClock(&billCountSink{}, "f.csv", now)
	if err := g.Billing(&finops.BillingLine{Line: 2, ChargeStart: now.AddDate(1, 0, 0), ChargeEnd: now.AddDate(1, 0, 7)}); err != nil {
		t.Fatal(err)
	}
	g.Finish(sum)
	// maxWarnings + 5 from the lines, one from the clock.
	if sum.WarningCount != maxWarnings+6 || len(sum.Warnings) != maxWarnings {
		t.Fatalf("%d warnings counted, %d kept; want %d and %d", sum.WarningCount, len(sum.Warnings), maxWarnings+6, maxWarnings)
	}
	if last := sum.Warnings[maxWarnings-1].Msg; !strings.Contains(last, "more than a day after this host's clock") {
		t.Errorf("the last kept warning is %q, not the clock's", last)
	}
}
