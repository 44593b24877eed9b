package ingest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestNvidiaSMIFallBack: a host logging Berlin time through the night the
// clock falls back (2026-10-25, 03:00 CEST → 02:00 CET) writes 02:00–02:45
// twice. Both passes must land on their own UTC instants, fifteen minutes
// apart, not the second pass on top of the first with the true hour missing.
// An NTP step back of a few minutes inside the first pass is not taken for
// the fall-back.
func TestNvidiaSMIFallBack(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	const header = "timestamp, index, uuid, utilization.gpu [%]\n"
	log := func(stamps ...string) []time.Time {
		t.Helper()
		var b strings.Builder
		b.WriteString(header)
		for _, s := range stamps {
			b.WriteString("2026/10/25 " + s + ".000, 0, GPU-a, 50 %\n")
		}
		sink := &recSink{}
		if _, err := Parse(context.Background(), strings.NewReader(b.String()),
			Options{Name: "dst.csv", Format: FormatNvidiaSMI, Host: "h", Location: berlin}, sink); err != nil {
			t.Fatal(err)
		}
		var out []time.Time
		for _, s := range sink.samples {
			out = append(out, s.Time)
		}
		return out
	}
	utc := func(day, h, m int) time.Time { return time.Date(2026, 10, day, h, m, 0, 0, time.UTC) }

	// CEST is UTC+2, CET UTC+1: 01:30 CEST = 23:30 UTC on the 24th; the first
	// 02:00 (CEST) is 00:00 UTC, the second (CET) 01:00 UTC; 03:00 CET is 02:00.
	got := log("01:30:00", "01:45:00", "02:00:00", "02:15:00", "02:30:00", "02:45:00",
		"02:00:00", "02:15:00", "02:30:00", "02:45:00", "03:00:00", "03:15:00")
	want := []time.Time{utc(24, 23, 30), utc(24, 23, 45), utc(25, 0, 0), utc(25, 0, 15), utc(25, 0, 30), utc(25, 0, 45),
		utc(25, 1, 0), utc(25, 1, 15), utc(25, 1, 30), utc(25, 1, 45), utc(25, 2, 0), utc(25, 2, 15)}
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("sample %d: %v, want %v", i, got[i], want[i])
		}
	}

	// A log that starts in the repeated hour has nothing before it: the first
	// pass (summer time) is the reading taken.
	if got := log("02:10:00"); !got[0].Equal(utc(25, 0, 10)) {
		t.Errorf("a log starting at 02:10: %v, want %v", got[0], utc(25, 0, 10))
	}
	// Stepped back three minutes at 02:30 CEST: 02:27 is 00:27 UTC, not 01:27.
	if got := log("02:30:00", "02:27:00"); !got[1].Equal(utc(25, 0, 27)) {
		t.Errorf("an NTP step back: %v, want %v", got[1], utc(25, 0, 27))
	}
}

func TestEarlierReading(t *testing.T) {
	for _, tt := range []struct {
		zone      string
		wall      time.Time // as time.Date reads it in zone
		want      time.Duration
		ambiguous bool
	}{
		{"Europe/Berlin", time.Date(2026, 10, 25, 2, 30, 0, 0, time.UTC), time.Hour, true},
		{"Europe/Berlin", time.Date(2026, 10, 25, 3, 30, 0, 0, time.UTC), 0, false},
		{"Europe/Berlin", time.Date(2026, 3, 29, 3, 30, 0, 0, time.UTC), 0, false}, // spring forward: no double
		{"Australia/Lord_Howe", time.Date(2026, 4, 5, 1, 45, 0, 0, time.UTC), 30 * time.Minute, true},
		{"Asia/Shanghai", time.Date(2026, 10, 25, 2, 30, 0, 0, time.UTC), 0, false},
	} {
		loc, err := time.LoadLocation(tt.zone)
		if err != nil {
			t.Fatal(err)
		}
		w := tt.wall
		at := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), 0, 0, loc)
		e, d, ok := earlierReading(at, loc)
		if ok != tt.ambiguous || d != tt.want || ok && (!e.Equal(at.Add(-d)) || e.In(loc).Hour() != w.Hour()) {
			t.Errorf("%s %s: earlierReading = %v, %v, %v", tt.zone, w.Format("2006-01-02 15:04"), e, d, ok)
		}
	}
}
