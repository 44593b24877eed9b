package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/store"
	"github.com/finops-oss/finops/watch/pass"
)

func TestWindowResolve(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	// now = Mon 2026-11-30 11:00 Shanghai.
	for _, tc := range []struct {
		flags      windowFlags
		start, end time.Time // UTC
		label      string
	}{
		// Default: the last complete ISO week, W48 = Mon Nov 23 00:00 +08 = Nov 22 16:00 UTC.
		{windowFlags{}, time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), "2026-W48"},
		{windowFlags{week: "last"}, time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), "2026-W48"},
		// W47 starts Mon Nov 16.
		{windowFlags{week: "2026-W47"}, time.Date(2026, 11, 15, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), "2026-W47"},
		// 2027-W01 starts Mon Jan 4 2027 (Jan 1 2027 is a Friday, in 2026-W53).
		{windowFlags{week: "2027-W01"}, time.Date(2027, 1, 3, 16, 0, 0, 0, time.UTC), time.Date(2027, 1, 10, 16, 0, 0, 0, time.UTC), "2027-W01"},
		// --since 30d: the 30 complete local days before today, Oct 31 00:00 +08
		// to Nov 30 00:00 +08 (Nov 29 16:00 UTC); labelled with the first and
		// last day covered, as --from 2026-10-31 --to 2026-11-29 would be.
		{windowFlags{since: "30d"}, time.Date(2026, 10, 30, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), "2026-10-31_2026-11-29"},
		{windowFlags{since: "48h"}, time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), "2026-11-28_2026-11-29"},
		// --to is inclusive: Nov 30 ends at Dec 1 00:00 local.
		{windowFlags{from: "2026-11-01", to: "2026-11-30"}, time.Date(2026, 10, 31, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC), "2026-11-01_2026-11-30"},
	} {
		t.Run(fmt.Sprintf("%+v", tc.flags), func(t *testing.T) {
			w, err := tc.flags.resolve(now, sh)
			if err != nil {
				t.Fatal(err)
			}
			if !w.Start.Equal(tc.start) || !w.End.Equal(tc.end) || w.Label != tc.label {
				t.Errorf("got [%v, %v) %q, want [%v, %v) %q", w.Start, w.End, w.Label, tc.start, tc.end, tc.label)
			}
		})
	}
	for _, bad := range []windowFlags{{week: "2026-47"}, {week: "2026-W54"}, {since: "soon"}, {since: "36h"}, {from: "2026-11-01"},
		{since: "7d", week: "2026-W47"}, {from: "2026-11-30", to: "2026-11-01"}} {
		if _, err := bad.resolve(now, sh); exitCode(err) != ExitUsage {
			t.Errorf("%+v: err %v, want a usage error", bad, err)
		}
	}
}

// TestWindowSinceDays: a report's --since is whole local days whatever the
// time of day or a DST change inside it, while a fetch's reaches up to now.
func TestWindowSinceDays(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	// New York left DST on Sun 2026-11-01 at 02:00 EDT. Two days before
	// Mon Nov 2 00:00 EST (05:00 UTC) is Sat Oct 31 00:00 EDT (04:00 UTC):
	// 49 hours, not 48.
	want := analysis.Window{Start: time.Date(2026, 10, 31, 4, 0, 0, 0, time.UTC),
		End: time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC), Label: "2026-10-31_2026-11-01"}
	for _, at := range []time.Time{
		time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC),   // 00:00 EST, the first minute of the day
		time.Date(2026, 11, 2, 17, 31, 0, 0, time.UTC), // 12:31 EST
		time.Date(2026, 11, 3, 4, 59, 0, 0, time.UTC),  // 23:59 EST, the last minute
	} {
		got, err := windowFlags{since: "2d"}.resolve(at, ny)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Start.Equal(want.Start) || !got.End.Equal(want.End) || got.Label != want.Label {
			t.Errorf("at %v: got [%v, %v) %q, want [%v, %v) %q", at, got.Start, got.End, got.Label, want.Start, want.End, want.Label)
		}
	}
	// ingest prometheus: 36h back from now (11:00 +08 = 03:00 UTC).
	got, err := windowFlags{since: "36h"}.resolveFetch(now, ny)
	if err != nil {
		t.Fatal(err)
	}
	if !got.End.Equal(now) || !got.Start.Equal(now.Add(-36*time.Hour)) {
		t.Errorf("fetch --since 36h: got [%v, %v), want [%v, %v)", got.Start, got.End, now.Add(-36*time.Hour), now)
	}
}

func TestExitCodes(t *testing.T) {
	base := errors.New("x")
	for _, tc := range []struct {
		err  error
		code int
	}{
		{nil, ExitOK},
		{base, ExitFailed},
		{usageError{base}, ExitUsage},
		{fmt.Errorf("wrapped: %w", usageError{base}), ExitUsage},
		{partialError{base}, ExitPartial},
		{publishError{base}, ExitPublish},
		// A watch pass's errors, and several of them joined: the table's order.
		{pass.BusyError{Err: base}, ExitBusy},
		{pass.ConfigError{Err: base}, ExitUsage},
		{pass.UndeliveredError{Err: base}, ExitPublish},
		{pass.PartialError{Err: base}, ExitPartial},
		{errors.Join(pass.PartialError{Err: base}, pass.UndeliveredError{Err: base}), ExitPublish},
	} {
		if got := exitCode(tc.err); got != tc.code {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
}

// TestRedactKeepsExitCode: a secret removed from an error's message does not
// change what the error is (restore used to return a plain error: exit 1).
func TestRedactKeepsExitCode(t *testing.T) {
	const key = "AKIASECRETKEY123"
	for _, err := range []error{usageError{errors.New("bad key " + key)}, busyError{errors.New("held " + key)},
		publishError{errors.New("upload with " + key)}} {
		got := redactErr(err, key, "", "abc")
		if strings.Contains(got.Error(), key) || !strings.Contains(got.Error(), "[redacted]") {
			t.Errorf("redactErr(%q) = %q", err, got)
		}
		if exitCode(got) != exitCode(err) {
			t.Errorf("redactErr(%q): exit %d, want %d", err, exitCode(got), exitCode(err))
		}
	}
	if redactErr(nil, key) != nil {
		t.Error("redactErr(nil) != nil")
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"report", "--week", "nope"},
		{"--config", "/nonexistent/finops.yaml", "report"},
		{"ingest"},
		{"--log-format", "xml", "version"},
		{"report", "--bogus-flag"},
	} {
		if code, _, _ := cli(t, args...); code != ExitUsage {
			t.Errorf("finops %v: exit %d, want %d", args, code, ExitUsage)
		}
	}
}

// TestSourceStatusesStale: telemetry that ends longer than thresholds.stale_after
// before the window's end is "stale"; billing never is.
func TestSourceStatusesStale(t *testing.T) {
	end := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	win := analysis.Window{Start: end.AddDate(0, 0, -7), End: end}
	srcs := []store.Source{
		// Telemetry up to 30 h before the end; a bill up to 3 days before.
		{Format: "nvidia-smi", Kind: "utilization", Host: "gpu-a", PeriodStart: win.Start, PeriodEnd: end.Add(-30 * time.Hour)},
		{Format: "focus", Kind: "billing", PeriodStart: win.Start, PeriodEnd: end.Add(-72 * time.Hour)},
	}
	status := func(staleAfter time.Duration) map[string]string {
		out := map[string]string{}
		for _, s := range sourceStatuses(srcs, win, staleAfter) {
			out[s.Name] = s.Status
		}
		return out
	}
	if got := status(24 * time.Hour); got["nvidia-smi gpu-a"] != "stale" || got["focus"] != "ok" {
		t.Errorf("stale after 24 h: %v", got)
	}
	if got := status(48 * time.Hour); got["nvidia-smi gpu-a"] != "ok" || got["focus"] != "ok" {
		t.Errorf("stale after 48 h: %v", got)
	}
}
