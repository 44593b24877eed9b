package ingest

import (
	"context"
	"math/rand"
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

// TestClockGuardOneFarFutureSample: issue 32's leftover — one sample of a
// log dated far ahead is refused and said (one warning naming 1 sample and
// its date), and not counted: the file's rows and period are the kept
// samples' (before, "3 rows, … .. 2099-12-07" with 2 stored, the file's
// period reaching 2099 for the stale-telemetry check).
func TestClockGuardOneFarFutureSample(t *testing.T) {
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	log := "timestamp, name, index, uuid, utilization.gpu [%]\n" +
		"2026/12/07 08:00:00.000, NVIDIA A100-SXM4-80GB, 0, GPU-a, 50 %\n" +
		"2099/12/07 08:01:00.000, NVIDIA A100-SXM4-80GB, 0, GPU-a, 50 %\n" +
		"2026/12/07 08:02:00.000, NVIDIA A100-SXM4-80GB, 0, GPU-a, 50 %\n"
	sink := &recSink{}
	g := NewClockGuard(sink, "smi.csv", now)
	sum, err := Parse(context.Background(), strings.NewReader(log), Options{Name: "smi.csv", Host: "h"}, g)
	if err == nil {
		err = g.Finish(sum)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.samples) != 2 || sum.Rows != 2 {
		t.Errorf("stored %d samples, summary says %d rows; want 2 and 2", len(sink.samples), sum.Rows)
	}
	if want := time.Date(2026, 12, 7, 8, 2, 0, 0, time.UTC); !sum.PeriodEnd.Equal(want) {
		t.Errorf("period ends %v, want %v (the last kept sample)", sum.PeriodEnd, want)
	}
	if sum.WarningCount != 1 || !strings.Contains(sum.Warnings[0].Error(), "smi.csv:3") ||
		!strings.Contains(sum.Warnings[0].Error(), "1 samples dated after") || !strings.Contains(sum.Warnings[0].Error(), "2099-12-07T08:01:00Z") {
		t.Errorf("warnings %v; want one naming smi.csv:3, 1 sample and 2099-12-07", sum.Warnings)
	}
}

// TestClockGuardGenerated: random files of samples around now, some ahead
// by more than an hour or before 2000: the guard keeps exactly the others
// (judged here from each time against now+1h and 2000), the summary's rows
// are the kept count and its period their extent, and a warning says how
// many were refused whenever any was.
func TestClockGuardGenerated(t *testing.T) {
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewSource(907))
	for n := 0; n < 500; n++ {
		var times []time.Time
		for k := 1 + rng.Intn(20); k > 0; k-- {
			var tm time.Time
			switch rng.Intn(5) {
			case 0:
				tm = now.Add(time.Duration(rng.Int63n(int64(100 * 365 * 24 * time.Hour)))) // ahead, up to a century
			case 1:
				tm = time.Date(1970+rng.Intn(40), 1, 1, 0, 0, 0, 0, time.UTC)
			default:
				tm = now.Add(-time.Duration(rng.Int63n(int64(30 * 24 * time.Hour)))).Add(time.Duration(rng.Int63n(int64(2 * time.Hour))))
			}
			times = append(times, tm.Truncate(time.Second))
		}
		var c clockCountSink
		g := NewClockGuard(&c, "g.csv", now)
		sum := &Summary{Kind: KindUtilization}
		wantKept, refused := 0, 0
		var lo, hi time.Time
		for i, tm := range times {
			sum.Rows++ // as the parser counts a sample the sink took
			sum.Extend(tm, tm)
			if err := g.Sample(&finops.GPUSample{Line: i + 2, Time: tm}); err != nil {
				t.Fatal(err)
			}
			if tm.After(now.Add(time.Hour)) || tm.Year() < 2000 {
				refused++
				continue
			}
			wantKept++
			if lo.IsZero() || tm.Before(lo) {
				lo = tm
			}
			if tm.After(hi) {
				hi = tm
			}
		}
		err := g.Finish(sum)
		if wantKept == 0 {
			if err == nil {
				t.Fatalf("%v: every sample refused, no error", times)
			}
			continue
		}
		if err != nil || c.samples != wantKept || sum.Rows != wantKept {
			t.Fatalf("%v: err %v, kept %d, rows %d; want %d", times, err, c.samples, sum.Rows, wantKept)
		}
		if refused > 0 && (!sum.PeriodStart.Equal(lo) || !sum.PeriodEnd.Equal(hi) || sum.WarningCount != 1) {
			t.Fatalf("%v: period %v..%v, %d warnings; want %v..%v and one", times, sum.PeriodStart, sum.PeriodEnd, sum.WarningCount, lo, hi)
		}
		if refused == 0 && sum.WarningCount != 0 {
			t.Fatalf("%v: a warning with nothing refused", times)
		}
	}
}
