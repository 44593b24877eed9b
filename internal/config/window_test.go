package config

import (
	"fmt"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// now is Mon 2026-11-30 03:00 UTC, 11:00 in Shanghai.
var now = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

func TestWindowResolve(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	// now = Mon 2026-11-30 11:00 Shanghai.
	for _, tc := range []struct {
		flags      Period
		start, end time.Time // UTC
		label      string
	}{
		// Default: the last complete ISO week, W48 = Mon Nov 23 00:00 +08 = Nov 22 16:00 UTC.
		{Period{}, time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), "2026-W48"},
		{Period{Week: "last"}, time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), "2026-W48"},
		// W47 starts Mon Nov 16.
		{Period{Week: "2026-W47"}, time.Date(2026, 11, 15, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), "2026-W47"},
		// 2027-W01 starts Mon Jan 4 2027 (Jan 1 2027 is a Friday, in 2026-W53).
		{Period{Week: "2027-W01"}, time.Date(2027, 1, 3, 16, 0, 0, 0, time.UTC), time.Date(2027, 1, 10, 16, 0, 0, 0, time.UTC), "2027-W01"},
		// --since 30d: the 30 complete local days before today, Oct 31 00:00 +08
		// to Nov 30 00:00 +08 (Nov 29 16:00 UTC); labelled with the first and
		// last day covered, as --from 2026-10-31 --to 2026-11-29 would be.
		{Period{Since: "30d"}, time.Date(2026, 10, 30, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), "2026-10-31_2026-11-29"},
		{Period{Since: "48h"}, time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), "2026-11-28_2026-11-29"},
		// --to is inclusive: Nov 30 ends at Dec 1 00:00 local.
		{Period{From: "2026-11-01", To: "2026-11-30"}, time.Date(2026, 10, 31, 16, 0, 0, 0, time.UTC), time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC), "2026-11-01_2026-11-30"},
	} {
		t.Run(fmt.Sprintf("%+v", tc.flags), func(t *testing.T) {
			w, err := tc.flags.Window(now, sh)
			if err != nil {
				t.Fatal(err)
			}
			if !w.Start.Equal(tc.start) || !w.End.Equal(tc.end) || w.Label != tc.label {
				t.Errorf("got [%v, %v) %q, want [%v, %v) %q", w.Start, w.End, w.Label, tc.start, tc.end, tc.label)
			}
		})
	}
	for _, bad := range []Period{{Week: "2026-47"}, {Week: "2026-W54"}, {Week: "1999-W10"}, {Since: "soon"}, {Since: "36h"}, {From: "2026-11-01"},
		{Since: "7d", Week: "2026-W47"}, {From: "2026-11-30", To: "2026-11-01"}, {From: "0000-01-01", To: "2026-11-01"}} {
		if _, err := bad.Window(now, sh); err == nil {
			t.Errorf("%+v: no error", bad)
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
		got, err := Period{Since: "2d"}.Window(at, ny)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Start.Equal(want.Start) || !got.End.Equal(want.End) || got.Label != want.Label {
			t.Errorf("at %v: got [%v, %v) %q, want [%v, %v) %q", at, got.Start, got.End, got.Label, want.Start, want.End, want.Label)
		}
	}
	// ingest prometheus: 36h back from now (11:00 +08 = 03:00 UTC).
	got, err := Period{Since: "36h"}.FetchWindow(now, ny)
	if err != nil {
		t.Fatal(err)
	}
	if !got.End.Equal(now) || !got.Start.Equal(now.Add(-36*time.Hour)) {
		t.Errorf("fetch --since 36h: got [%v, %v), want [%v, %v)", got.Start, got.End, now.Add(-36*time.Hour), now)
	}
}

func TestQuarter(t *testing.T) {
	loc := time.FixedZone("CST", 8*3600)
	day := func(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, loc) }
	for _, tc := range []struct {
		in, label, prev           string
		prevStart, start, nextQtr time.Time
	}{
		{"2026Q4", "2026Q4", "2026Q3", day(2026, 7), day(2026, 10), day(2027, 1)},
		{"2026-q1", "2026Q1", "2025Q4", day(2025, 10), day(2026, 1), day(2026, 4)},
	} {
		q, prev, err := Quarter(tc.in, loc)
		if err != nil || q.Label != tc.label || prev.Label != tc.prev || !q.Start.Equal(tc.start) || !q.End.Equal(tc.nextQtr) ||
			!prev.Start.Equal(tc.prevStart) || !prev.End.Equal(tc.start) {
			t.Errorf("%s: %+v, %+v, %v", tc.in, q, prev, err)
		}
	}
	for _, bad := range []string{"2026Q5", "Q4-2026", "1999Q1"} {
		if _, _, err := Quarter(bad, loc); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
