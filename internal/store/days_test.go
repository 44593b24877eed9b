package store

import (
	"context"
	"database/sql"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// TestCompactTelemetry: minutes of days that ended before the cut become one
// row per GPU-day, the series a report reads is the same before and after,
// and a minute delivered again after compaction is not counted twice.
func TestCompactTelemetry(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	d0 := utc(2025, 3, 1, 0, 0, 0) // 1740787200 s: unix day 20148, minute 29013120
	const m0 = 29013120
	smp := func(at time.Duration, util, mem, power *float64) *finops.GPUSample {
		return &finops.GPUSample{UUID: "GPU-A", Index: -1, Time: d0.Add(at), Util: util, MemUsed: mem, PowerWatt: power}
	}
	sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization}
	mustImport(t, s, "a.csv", feed(sum, nil, []*finops.GPUSample{
		smp(10*time.Hour+5*time.Second, new(20.0), new(100.0), new(50.0)),
		smp(10*time.Hour+35*time.Second, new(40.0), new(300.0), new(70.0)),
		smp(10*time.Hour+time.Minute, nil, new(500.0), new(10.0)),
		smp(24*time.Hour-30*time.Second, new(8.0), nil, nil),  // 23:59 → 8
		smp(24*time.Hour+10*time.Second, new(50.0), nil, nil), // day 2, 00:00 → 50
		smp(48*time.Hour+12*time.Hour, new(60.0), nil, nil),   // day 3, 12:00 → 60: stays hot
	}, nil))
	// By hand, in minutes from m0: 600 = 10:00, 1439 = 23:59, 1440 = day 2
	// 00:00, 2880 + 720 = day 3 12:00.
	want := []finops.MinuteUtil{{Minute: m0 + 600, Util: 30}, {Minute: m0 + 1439, Util: 8}, {Minute: m0 + 1440, Util: 50}, {Minute: m0 + 3600, Util: 60}}
	if got := compactSeries(ctx, t, s, d0); !reflect.DeepEqual(got, want) {
		t.Fatalf("before compaction: %v, want %v", got, want)
	}

	// Cut during day 3: days 1 and 2 are compacted, day 3 stays per minute.
	c, err := s.CompactTelemetry(ctx, d0.Add(53*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// Minute rows of days 1 and 2: 10:00, 10:01, 23:59, day-2 00:00 = 4.
	if c != (Compacted{Days: 2, Minutes: 4}) {
		t.Errorf("CompactTelemetry = %+v, want 2 days from 4 minutes", c)
	}
	assertCounts(t, s, wantCounts(map[string]int{"source_files": 1, "gpus": 1, "gpu_minutes": 1, "gpu_days": 2}))
	if got := compactSeries(ctx, t, s, d0); !reflect.DeepEqual(got, want) {
		t.Fatalf("after compaction: %v, want %v", got, want)
	}
	all := checkCompactOutlines(ctx, t, s, d0, want)
	// Day 1: utilization in 10:00 and 23:59; memory at most 500 (10:01);
	// power 50 + 70 + 10 = 130 from 3 samples.
	if n, mem, pw, pn := compactDay(t, s, 20148); n != 2 || mem != 500 || pw != 130 || pn != 3 {
		t.Errorf("day 1: %d minutes, mem %v, power %v/%d; want 2, 500, 130/3", n, mem, pw, pn)
	}

	// A log delivered later: a new sample in 10:00 (compacted: the stored
	// minute wins, its memory and power are not added) and one in 11:00,
	// which day 1 has no sample for.
	mustImport(t, s, "late.csv", feed(sum, nil, []*finops.GPUSample{
		smp(10*time.Hour+50*time.Second, new(100.0), new(9999.0), new(999.0)),
		smp(11*time.Hour, new(70.0), new(200.0), new(20.0)),
	}, nil))
	want = []finops.MinuteUtil{{Minute: m0 + 600, Util: 30}, {Minute: m0 + 660, Util: 70}, {Minute: m0 + 1439, Util: 8}, {Minute: m0 + 1440, Util: 50}, {Minute: m0 + 3600, Util: 60}}
	if got := compactSeries(ctx, t, s, d0); !reflect.DeepEqual(got, want) {
		t.Fatalf("late delivery, before compaction: %v, want %v", got, want)
	}
	if c, err = s.CompactTelemetry(ctx, d0.Add(53*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if c != (Compacted{Days: 1, Minutes: 2}) {
		t.Errorf("second CompactTelemetry = %+v, want 1 day from 2 minutes", c)
	}
	if got := compactSeries(ctx, t, s, d0); !reflect.DeepEqual(got, want) {
		t.Fatalf("late delivery, after compaction: %v, want %v", got, want)
	}
	// 11:00 is new: 3 minutes; power 130 + 20 = 150 from 4 samples; memory
	// still 500 (the 9999 came with the repeated minute).
	if n, mem, pw, pn := compactDay(t, s, 20148); n != 3 || mem != 500 || pw != 150 || pn != 4 {
		t.Errorf("day 1 after the late log: %d minutes, mem %v, power %v/%d; want 3, 500, 150/4", n, mem, pw, pn)
	}

	// Nothing older left: compacting again changes nothing.
	if c, err = s.CompactTelemetry(ctx, d0.Add(53*time.Hour)); err != nil || c != (Compacted{}) {
		t.Errorf("third CompactTelemetry = %+v, %v; want nothing", c, err)
	}

	checkDamagedDay(ctx, t, s, d0, all)
}

// compactSeries is the one GPU's minutes of the three days, as a report
// reads them.
func compactSeries(ctx context.Context, t *testing.T, s *Store, d0 time.Time) []finops.MinuteUtil {
	t.Helper()
	got, err := s.GPUSeries(ctx, d0, d0.Add(72*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("GPUSeries: %d GPUs, want 1", len(got))
	}
	return got[0].Minutes()
}

// compactDay reads the compacted row of unix day d.
func compactDay(t *testing.T, s *Store, d int64) (minutes int, mem float64, power float64, powerN int) {
	t.Helper()
	if err := s.DB().QueryRow(`SELECT minutes, mem_used_max, power_sum, power_n FROM gpu_days WHERE day = ?`, d).
		Scan(&minutes, &mem, &power, &powerN); err != nil {
		t.Fatal(err)
	}
	return
}

// checkCompactOutlines checks the outlines across the compacted days and
// the hot one, and a range cut inside compacted minutes; it returns the
// three days' series.
func checkCompactOutlines(ctx context.Context, t *testing.T, s *Store, d0 time.Time, want []finops.MinuteUtil) []finops.GPUSeries {
	t.Helper()
	// Outlines across the compacted days and the hot one; then a range that
	// starts at 10:01 of day 1 (a compacted minute without utilization) and
	// ends in day 2's first minute: by hand, 23:59 (8) and day 2 00:00 (50).
	all, err := s.GPUSeries(ctx, d0, d0.Add(72*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	checkOutlines(t, s, d0, d0.Add(72*time.Hour), all)
	from, to := d0.Add(10*time.Hour+time.Minute), d0.Add(24*time.Hour+30*time.Second)
	cut, err := s.GPUSeries(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(cut) != 1 || !reflect.DeepEqual(cut[0].Minutes(), want[1:3]) {
		t.Fatalf("GPUSeries from 10:01 to day 2 00:00:30 = %+v, want %v", cut, want[1:3])
	}
	checkOutlines(t, s, from, to, cut)
	return all
}

// checkDamagedDay damages day 2's blob and checks every reader of it
// fails naming the day.
func checkDamagedDay(ctx context.Context, t *testing.T, s *Store, d0 time.Time, all []finops.GPUSeries) {
	t.Helper()
	// A damaged blob is an error naming the day, not a silent gap.
	if _, err := s.DB().Exec(`UPDATE gpu_days SET util = x'00' WHERE day = 20149`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GPUSeries(ctx, d0, d0.Add(72*time.Hour)); err == nil || !strings.Contains(err.Error(), "2025-03-02") {
		t.Errorf("damaged day: err = %v, want one naming 2025-03-02", err)
	}
	// The outline's last edge walks back through it (day 3 is hot, not
	// compacted), and loading the GPU's minutes reads it.
	if _, err := s.GPUOutlines(ctx, d0, d0.Add(72*time.Hour)); err == nil || !strings.Contains(err.Error(), "2025-03-02") {
		t.Errorf("damaged day: GPUOutlines err = %v, want one naming 2025-03-02", err)
	}
	if _, err := s.LoadSeries(ctx, &all[0], d0, d0.Add(72*time.Hour)); err == nil || !strings.Contains(err.Error(), "2025-03-02") {
		t.Errorf("damaged day: LoadSeries err = %v, want one naming 2025-03-02", err)
	}
}

func TestDayBlobRoundTrip(t *testing.T) {
	var in, out [dayMinutes]float32
	for i := range in {
		in[i] = float32(math.NaN())
	}
	in[0], in[1], in[dayMinutes-1] = 0, 9.999999, 100
	b := encodeDay(&in)
	if len(b) != 4*1440 {
		t.Fatalf("blob of %d bytes", len(b))
	}
	if err := decodeDay(b, &out); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if math.Float32bits(in[i]) != math.Float32bits(out[i]) {
			t.Fatalf("minute %d: %v → %v", i, in[i], out[i])
		}
	}
	if err := decodeDay(b[:100], &out); err == nil {
		t.Error("a short blob decoded")
	}
}

// TestQueryPlans: with a year of history a report must still read only its
// own range. Each query a report runs walks an index or a primary key, and
// the billing lines come out in index order (no temporary sort that would
// hold a month of lines).
func TestQueryPlans(t *testing.T) {
	s := openTest(t)
	for _, tt := range []struct {
		name, query string
		args        int
		want        []string // in the plan, in order
	}{
		{"line start bound", queryLineStartBound, 1, []string{"SEARCH billing_lines USING INDEX billing_lines_end (charge_end>?)"}},
		{"lines", queryLines, 4, []string{"SEARCH billing_lines USING INDEX billing_lines_start (charge_start>? AND charge_start<?)"}},
		// The temporary B-tree holds one row per currency and file, not a line.
		{"line summary", queryLineSummary, 4, []string{"SEARCH b USING INDEX billing_lines_start (charge_start>? AND charge_start<?)",
			"SEARCH f USING INTEGER PRIMARY KEY (rowid=?)", "USE TEMP B-TREE FOR GROUP BY"}},
		{"series minutes", querySeriesMinutes, 3, []string{"SEARCH gpu_minutes USING PRIMARY KEY (gpu_id=? AND minute>? AND minute<?)"}},
		{"series days", querySeriesDays, 3, []string{"SEARCH gpu_days USING INDEX sqlite_autoindex_gpu_days_1 (gpu_id=? AND day>? AND day<?)"}},
		{"outline minutes", querySpanMinutes, 3, []string{"SEARCH gpu_minutes USING PRIMARY KEY (gpu_id=? AND minute>? AND minute<?)"}},
		{"outline first day", querySpanDaysFirst, 3, []string{"SEARCH gpu_days USING INDEX sqlite_autoindex_gpu_days_1 (gpu_id=? AND day>? AND day<?)"}},
		{"outline last day", querySpanDaysLast, 3, []string{"SEARCH gpu_days USING INDEX sqlite_autoindex_gpu_days_1 (gpu_id=? AND day>? AND day<?)"}},
		{"GPU by key", queryGPUByKey, 1, []string{"SEARCH gpus USING COVERING INDEX sqlite_autoindex_gpus_1 (gpu_key=?)"}},
		{"watch alerts", queryWatchAlerts, 2, []string{"SEARCH m USING INDEX watch_messages_sent (sent_at>? AND sent_at<?)",
			"SEARCH e USING INTEGER PRIMARY KEY (rowid=?)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := make([]any, tt.args)
			for i := range args {
				args[i] = i
			}
			rows, err := s.DB().Query("EXPLAIN QUERY PLAN "+tt.query, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, notused int
				var detail sql.NullString
				if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail.String)
			}
			if !reflect.DeepEqual(plan, tt.want) {
				t.Errorf("plan:\n  %s\nwant:\n  %s", strings.Join(plan, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}
