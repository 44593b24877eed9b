package ingest

import (
	"context"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones below on any machine, with or without /usr/share/zoneinfo
)

// dstWindows are four hours around a daylight-saving transition in zones on
// both sides of UTC (time.Date resolves a repeated wall clock to the summer
// reading west of UTC and to the winter one east of it, so both sides must be
// tested), with the 30-minute shift of Lord Howe and São Paulo's fall-back at
// midnight (2019, its last).
var dstWindows = []struct {
	zone  string
	from  time.Time // UTC
	shift time.Duration
	back  bool // falls back (a repeated hour) rather than springs forward (a skipped one)
}{
	{"America/New_York", time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC), time.Hour, true}, // 01:00–01:59 twice
	{"America/Los_Angeles", time.Date(2026, 11, 1, 7, 0, 0, 0, time.UTC), time.Hour, true},
	{"America/Sao_Paulo", time.Date(2019, 2, 17, 0, 0, 0, 0, time.UTC), time.Hour, true}, // 23:00–23:59 on the 16th twice
	{"Europe/Berlin", time.Date(2026, 10, 24, 23, 0, 0, 0, time.UTC), time.Hour, true},   // 02:00–02:59 twice
	{"Australia/Sydney", time.Date(2026, 4, 4, 14, 0, 0, 0, time.UTC), time.Hour, true},  // 02:00–02:59 twice
	{"Australia/Lord_Howe", time.Date(2026, 4, 4, 13, 0, 0, 0, time.UTC), 30 * time.Minute, true},
	{"America/New_York", time.Date(2026, 3, 8, 5, 0, 0, 0, time.UTC), time.Hour, false}, // 02:00–02:59 never
	{"Europe/Berlin", time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC), time.Hour, false},
	{"Australia/Sydney", time.Date(2026, 10, 3, 14, 0, 0, 0, time.UTC), time.Hour, false},
}

// TestNvidiaSMIDaylightSaving: a host logging local time through the night
// its clock changes, one sample every 5 minutes for four hours in a file cut
// at a UTC hour (so the repeated hour is in the middle of the file). The
// expectation is computed the other way round: each true instant is written
// as the zone's wall clock by Go's formatter (which knows the offset), and
// the parser, which does not, must get every instant back: both passes of a
// repeated hour on their own minutes, no hour lost or doubled, no gap at a
// spring-forward.
func TestNvidiaSMIDaylightSaving(t *testing.T) {
	const header = "timestamp, index, uuid, utilization.gpu [%]\n"
	for _, w := range dstWindows {
		t.Run(w.zone+"/"+w.from.Format("2006-01"), func(t *testing.T) {
			loc, err := time.LoadLocation(w.zone)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			b.WriteString(header)
			var want []time.Time
			for k := range 48 {
				at := w.from.Add(time.Duration(k) * 5 * time.Minute)
				want = append(want, at)
				b.WriteString(at.In(loc).Format("2006/01/02 15:04:05.000") + ", 0, GPU-a, 50 %\n")
			}
			sink := &recSink{}
			if _, err := Parse(context.Background(), strings.NewReader(b.String()),
				Options{Name: "dst.csv", Format: FormatNvidiaSMI, Host: "h", Location: loc}, sink); err != nil {
				t.Fatal(err)
			}
			if len(sink.samples) != len(want) {
				t.Fatalf("%d samples, want %d", len(sink.samples), len(want))
			}
			seen := map[time.Time]bool{}
			for i, s := range sink.samples {
				if !s.Time.Equal(want[i]) {
					t.Errorf("sample %d (%s): %v, want %v", i, want[i].In(loc).Format("15:04 MST"), s.Time, want[i])
				}
				if seen[s.Time] {
					t.Errorf("sample %d on the minute of an earlier one: %v", i, s.Time)
				}
				seen[s.Time] = true
			}
		})
	}
}

// TestNvidiaSMIFallBackEdges: what a log running forward cannot tell from its
// own order, in Berlin (east of UTC) and New York (west).
func TestNvidiaSMIFallBackEdges(t *testing.T) {
	const header = "timestamp, index, uuid, utilization.gpu [%]\n"
	log := func(t *testing.T, loc *time.Location, day string, stamps ...string) []time.Time {
		t.Helper()
		var b strings.Builder
		b.WriteString(header)
		for _, s := range stamps {
			b.WriteString(day + " " + s + ".000, 0, GPU-a, 50 %\n")
		}
		sink := &recSink{}
		if _, err := Parse(context.Background(), strings.NewReader(b.String()),
			Options{Name: "dst.csv", Format: FormatNvidiaSMI, Host: "h", Location: loc}, sink); err != nil {
			t.Fatal(err)
		}
		var out []time.Time
		for _, s := range sink.samples {
			out = append(out, s.Time)
		}
		return out
	}
	for _, tt := range []struct {
		zone, day, repeated string // a wall clock in the repeated hour
		first               time.Time
	}{
		// 02:10 CEST (UTC+2) is 00:10 UTC; 01:10 EDT (UTC−4) is 05:10 UTC.
		{"Europe/Berlin", "2026/10/25", "02:10:00", time.Date(2026, 10, 25, 0, 10, 0, 0, time.UTC)},
		{"America/New_York", "2026/11/01", "01:10:00", time.Date(2026, 11, 1, 5, 10, 0, 0, time.UTC)},
	} {
		t.Run(tt.zone, func(t *testing.T) {
			loc, err := time.LoadLocation(tt.zone)
			if err != nil {
				t.Fatal(err)
			}
			// A log that starts in the repeated hour has nothing before it:
			// the first pass (summer time) is the reading taken.
			if got := log(t, loc, tt.day, tt.repeated); !got[0].Equal(tt.first) {
				t.Errorf("a log starting at %s: %v, want %v", tt.repeated, got[0], tt.first)
			}
			// An NTP step back of three minutes inside the first pass is not
			// the fall-back: 20 minutes in, then 17.
			h := tt.repeated[:3]
			if got := log(t, loc, tt.day, h+"20:00", h+"17:00"); !got[1].Equal(tt.first.Add(7 * time.Minute)) {
				t.Errorf("an NTP step back: %v, want %v", got[1], tt.first.Add(7*time.Minute))
			}
		})
	}

	// A wall clock the zone skips (New York, 8 Mar 2026, 02:00 → 03:00) is
	// written by no clock in that zone: the zone given is wrong. Refused,
	// naming the field and the zone, not moved by an hour in silence.
	ny, _ := time.LoadLocation("America/New_York")
	_, err := Parse(context.Background(), strings.NewReader(header+"2026/03/08 02:30:00.000, 0, GPU-a, 50 %\n"),
		Options{Name: "gap.csv", Format: FormatNvidiaSMI, Host: "h", Location: ny}, &recSink{})
	if err == nil || !strings.Contains(err.Error(), "gap.csv:2") || !strings.Contains(err.Error(), "timestamp") ||
		!strings.Contains(err.Error(), "America/New_York") {
		t.Errorf("a skipped wall clock: %v, want a refusal naming gap.csv:2, the timestamp and the zone", err)
	}
}

func TestFallBackReadings(t *testing.T) {
	for _, tt := range []struct {
		zone      string
		wall      time.Time // as a wall clock in zone
		early     time.Time // UTC, the first pass
		shift     time.Duration
		ambiguous bool
	}{
		// Berlin: 02:30 CEST = 00:30 UTC, then 02:30 CET = 01:30 UTC.
		{"Europe/Berlin", time.Date(2026, 10, 25, 2, 30, 0, 0, time.UTC), time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC), time.Hour, true},
		{"Europe/Berlin", time.Date(2026, 10, 25, 3, 30, 0, 0, time.UTC), time.Time{}, 0, false},
		// New York: 01:30 EDT = 05:30 UTC, then 01:30 EST = 06:30 UTC.
		{"America/New_York", time.Date(2026, 11, 1, 1, 30, 0, 0, time.UTC), time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC), time.Hour, true},
		{"America/New_York", time.Date(2026, 11, 1, 0, 59, 0, 0, time.UTC), time.Time{}, 0, false},
		// São Paulo: 23:30 −02 = 01:30 UTC, then 23:30 −03 = 02:30 UTC.
		{"America/Sao_Paulo", time.Date(2019, 2, 16, 23, 30, 0, 0, time.UTC), time.Date(2019, 2, 17, 1, 30, 0, 0, time.UTC), time.Hour, true},
		// Lord Howe: 01:45 +11 = 14:45 UTC, then 01:45 +10:30 = 15:15 UTC.
		{"Australia/Lord_Howe", time.Date(2026, 4, 5, 1, 45, 0, 0, time.UTC), time.Date(2026, 4, 4, 14, 45, 0, 0, time.UTC), 30 * time.Minute, true},
		{"Asia/Shanghai", time.Date(2026, 10, 25, 2, 30, 0, 0, time.UTC), time.Time{}, 0, false},
	} {
		loc, err := time.LoadLocation(tt.zone)
		if err != nil {
			t.Fatal(err)
		}
		w := tt.wall
		at := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), 0, 0, loc)
		// Whichever instant time.Date chose, and either pass: the same answer.
		from := []time.Time{at}
		if tt.ambiguous {
			from = append(from, tt.early, tt.early.Add(tt.shift))
		}
		for _, from := range from {
			e, d, ok := fallBackReadings(from, loc)
			if ok != tt.ambiguous || d != tt.shift || ok && !e.Equal(tt.early) {
				t.Errorf("%s %s from %v: fallBackReadings = %v, %v, %v; want %v, %v, %v", tt.zone,
					w.Format("2006-01-02 15:04"), from.UTC(), e.UTC(), d, ok, tt.early, tt.shift, tt.ambiguous)
			}
		}
	}
}

// TestTasksDaylightSaving: a tasks file in New York local time (rows in no
// order a parser could lean on). A run from 01:30 to 01:15 can only have
// started in EDT and ended in EST: read so, without a warning. A run from
// 01:00 to 02:00 fits both passes of its start: read as the first (05:00 to
// 07:00 UTC) and the file's summary warns. A run in the skipped hour of
// spring is refused.
func TestTasksDaylightSaving(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	const hdr = "task,resource,start,end\n"
	sink := &recSink{}
	sum, err := Parse(context.Background(), strings.NewReader(hdr+
		"a,r,2026-11-01 01:30:00,2026-11-01 01:15:00\n"+
		"b,r,2026-11-01 01:00:00,2026-11-01 02:00:00\n"+
		"c,r,2026-11-01 03:00:00,2026-11-01 04:00:00\n"),
		Options{Name: "tasks.csv", Format: FormatTasks, Location: ny}, sink)
	if err != nil {
		t.Fatal(err)
	}
	utc := func(h, m int) time.Time { return time.Date(2026, 11, 1, h, m, 0, 0, time.UTC) }
	want := [][2]time.Time{{utc(5, 30), utc(6, 15)}, {utc(5, 0), utc(7, 0)}, {utc(8, 0), utc(9, 0)}}
	for i, w := range want {
		if got := sink.tasks[i]; !got.Start.Equal(w[0]) || !got.End.Equal(w[1]) {
			t.Errorf("run %s: %v – %v, want %v – %v", got.Task, got.Start, got.End, w[0], w[1])
		}
	}
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0].Error(), "1 runs") || !strings.Contains(sum.Warnings[0].Error(), "America/New_York") {
		t.Errorf("warnings = %q, want one naming 1 run and the zone", sum.Warnings)
	}
	_, err = Parse(context.Background(), strings.NewReader(hdr+"d,r,2026-03-08 02:30:00,2026-03-08 04:00:00\n"),
		Options{Name: "tasks.csv", Format: FormatTasks, Location: ny}, &recSink{})
	if err == nil || !strings.Contains(err.Error(), "tasks.csv:2") || !strings.Contains(err.Error(), "skip") {
		t.Errorf("a start in the skipped hour: %v, want a refusal naming tasks.csv:2", err)
	}
}
