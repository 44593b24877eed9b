package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

type clockCountSink struct{ samples int }

func (c *clockCountSink) Billing(*finops.BillingLine) error { return nil }
func (c *clockCountSink) Sample(*finops.GPUSample) error    { c.samples++; return nil }
func (c *clockCountSink) TaskRun(*finops.TaskRun) error     { return nil }

// TestClockGuard: samples dated more than an hour after now, or before
// 2000, are refused and named in one warning; a file of nothing else is
// refused whole.
func TestClockGuard(t *testing.T) {
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return now.Add(d) }
	tests := []struct {
		name     string
		times    []time.Time
		kept     int
		wantWarn string // "" none
		wantErr  string
	}{
		{"all good, one 59 min ahead", []time.Time{at(-time.Hour), at(59 * time.Minute)}, 2, "", ""},
		{"a year ahead", []time.Time{at(-time.Hour), at(365 * 24 * time.Hour), at(366 * 24 * time.Hour)}, 1,
			"f.csv:3: field \"timestamp\": 2 samples dated after 2026-11-30T04:00:00Z, up to 2027-12-01T03:00:00Z: the host's clock runs ahead", ""},
		{"reset to 1970", []time.Time{time.Unix(60, 0), at(0)}, 1, "1 samples dated before 2000 (from 1970-01-01T00:01:00Z)", ""},
		{"every one ahead", []time.Time{at(2 * time.Hour), at(3 * time.Hour)}, 0, "", "f.csv:2: field \"timestamp\": every sample is refused: 2 samples"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c clockCountSink
			g := NewClockGuard(&c, "f.csv", now)
			for i, tm := range tt.times {
				if err := g.Sample(&finops.GPUSample{Line: i + 2, Time: tm}); err != nil {
					t.Fatal(err)
				}
			}
			sum := &Summary{}
			err := g.Finish(sum)
			if c.samples != tt.kept {
				t.Errorf("kept %d samples, want %d", c.samples, tt.kept)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
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
