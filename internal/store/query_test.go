package store

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

func TestLinesRange(t *testing.T) {
	ctx := context.Background()
	h := func(hour, min, sec int) time.Time { return utc(2025, 3, 1, hour, min, sec) }
	// Every line is identified by its resource id.
	lines := []*finops.BillingLine{
		usageLine(2, "ends-at-from", h(9, 0, 0), h(10, 0, 0), "1"),           // end == from: excluded
		usageLine(3, "ends-1s-after-from", h(9, 0, 0), h(10, 0, 1), "1"),     // overlaps [10:00:00, 10:00:01)
		usageLine(4, "starts-at-from", h(10, 0, 0), h(11, 0, 0), "1"),        // exactly the window
		usageLine(5, "inside", h(10, 15, 0), h(10, 45, 0), "1"),              // inside
		usageLine(6, "starts-1s-before-to", h(10, 59, 59), h(12, 0, 0), "1"), // overlaps [10:59:59, 11:00)
		usageLine(7, "starts-at-to", h(11, 0, 0), h(12, 0, 0), "1"),          // start == to: excluded
		usageLine(8, "spans-window", h(8, 0, 0), h(13, 0, 0), "1"),           // covers the window
		usageLine(9, "before", h(7, 0, 0), h(8, 0, 0), "1"),                  // entirely before
		usageLine(10, "after", h(12, 0, 0), h(13, 0, 0), "1"),                // entirely after
		// Zero-length lines (FOCUS allows ChargePeriodEnd == Start: one-time
		// charges) are instants; analysis counts one when from <= t < to.
		usageLine(11, "instant-at-from", h(10, 0, 0), h(10, 0, 0), "1"),  // from <= from: included
		usageLine(12, "instant-inside", h(10, 30, 0), h(10, 30, 0), "1"), // included
		usageLine(13, "instant-at-to", h(11, 0, 0), h(11, 0, 0), "1"),    // to is excluded
		usageLine(14, "instant-before", h(9, 59, 59), h(9, 59, 59), "1"), // excluded
	}
	s := openTest(t)
	mustImport(t, s, "lines.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: len(lines)}, lines, nil, nil))

	for _, tt := range []struct {
		name     string
		from, to time.Time
		want     []string // resource ids, ordered by charge_start then insertion
	}{
		{
			name: "[10:00, 11:00)", from: h(10, 0, 0), to: h(11, 0, 0),
			want: []string{"spans-window", "ends-1s-after-from", "starts-at-from", "instant-at-from",
				"inside", "instant-inside", "starts-1s-before-to"},
		},
		{
			// The hour before: the lines that end at 10:00 or start before it.
			name: "[09:00, 10:00)", from: h(9, 0, 0), to: h(10, 0, 0),
			want: []string{"spans-window", "ends-at-from", "ends-1s-after-from", "instant-before"},
		},
		{
			name: "[11:00, 12:00)", from: h(11, 0, 0), to: h(12, 0, 0),
			want: []string{"spans-window", "starts-1s-before-to", "starts-at-to", "instant-at-to"},
		},
		{
			name: "a window with no lines", from: utc(2025, 4, 1, 0, 0, 0), to: utc(2025, 5, 1, 0, 0, 0),
			want: nil,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Lines(ctx, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, l := range got {
				ids = append(ids, l.ResourceID)
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("Lines(%s) = %v\nwant %v", tt.name, ids, tt.want)
			}
		})
	}

	// Adjacent windows: every line of the day falls in at least one hour, and
	// each instant in exactly one.
	seen := map[string]int{}
	for hr := 0; hr < 24; hr++ {
		got, err := s.Lines(ctx, h(hr, 0, 0), h(hr, 0, 0).Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range got {
			seen[l.ResourceID]++
		}
	}
	for _, l := range lines {
		n := seen[l.ResourceID]
		if n == 0 || (l.ChargeStart.Equal(l.ChargeEnd) && n != 1) {
			t.Errorf("line %s is in %d hourly windows", l.ResourceID, n)
		}
	}
}

func TestGPUSeries(t *testing.T) {
	ctx := context.Background()
	t0 := utc(2025, 3, 1, 10, 0, 0) // minute 1740823200/60 = 29013720
	const m0 = 29013720
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	smp := func(uuid string, d time.Duration, util *float64) *finops.GPUSample {
		return &finops.GPUSample{Host: "h", Index: 0, UUID: uuid, Time: at(d), Util: util}
	}
	for _, tt := range []struct {
		name     string
		files    [][]*finops.GPUSample
		interval []time.Duration // SampleInterval of each file (0 = unknown)
		from, to time.Time
		want     []finops.GPUSeries
	}{
		{
			name:  "two samples in one minute are averaged",
			files: [][]*finops.GPUSample{{smp("G", 0, new(20.0)), smp("G", 59*time.Second+999*time.Millisecond, new(40.0))}},
			from:  t0, to: at(time.Hour),
			// (20 + 40) / 2 = 30; no interval known → 60 s.
			want: []finops.GPUSeries{series(finops.GPUSeries{Key: "G", Host: "h", UUID: "G", Interval: time.Minute}, []finops.MinuteUtil{{Minute: m0, Util: 30}})},
		},
		{
			name: "a nil util is not a minute and not part of a mean",
			files: [][]*finops.GPUSample{{smp("G", 0, new(20.0)), smp("G", 10*time.Second, nil),
				smp("G", time.Minute, nil), smp("G", 2*time.Minute, new(70.0))}},
			interval: []time.Duration{10 * time.Second},
			from:     t0, to: at(time.Hour),
			// minute m0: only 20 (nil skipped) → 20; m0+1: only nil → no minute; m0+2: 70.
			want: []finops.GPUSeries{series(finops.GPUSeries{Key: "G", Host: "h", UUID: "G", Interval: 10 * time.Second}, []finops.MinuteUtil{{Minute: m0, Util: 20}, {Minute: m0 + 2, Util: 70}})},
		},
		{
			name:  "a GPU with only nil utils is left out",
			files: [][]*finops.GPUSample{{smp("MIG-1", 0, nil), smp("G", 0, new(5.0))}},
			from:  t0, to: at(time.Hour),
			want: []finops.GPUSeries{series(finops.GPUSeries{Key: "G", Host: "h", UUID: "G", Interval: time.Minute}, []finops.MinuteUtil{{Minute: m0, Util: 5}})},
		},
		{
			name: "the range is [from, to), cut at whole minutes",
			files: [][]*finops.GPUSample{{smp("G", -time.Millisecond, new(1.0)), smp("G", 0, new(2.0)),
				smp("G", time.Minute-time.Millisecond, new(4.0)), smp("G", time.Minute, new(8.0))}},
			from: t0, to: at(time.Minute),
			// -1 ms is before from, +60 s is at to: (2 + 4) / 2 = 3 in m0.
			want: []finops.GPUSeries{series(finops.GPUSeries{Key: "G", Host: "h", UUID: "G", Interval: time.Minute}, []finops.MinuteUtil{{Minute: m0, Util: 3}})},
		},
		{
			name: "the interval is the row-weighted median of the GPU's files; GPUs sorted by key",
			files: [][]*finops.GPUSample{{smp("G2", 0, new(1.0)), smp("G2", time.Second, new(1.0))},
				{smp("G2", time.Minute, new(3.0)), smp("G1", 0, new(9.0))}},
			interval: []time.Duration{15 * time.Second, 2 * time.Minute},
			from:     t0, to: at(time.Hour),
			// G2: 15 s over 2 rows, 2 min over 2 rows: half the weight is
			// reached at 15 s (the lower median), where the longest would
			// be 2 min. G1 has only the second file.
			want: []finops.GPUSeries{
				series(finops.GPUSeries{Key: "G1", Host: "h", UUID: "G1", Interval: 2 * time.Minute}, []finops.MinuteUtil{{Minute: m0, Util: 9}}),
				series(finops.GPUSeries{Key: "G2", Host: "h", UUID: "G2", Interval: 15 * time.Second}, []finops.MinuteUtil{{Minute: m0, Util: 1}, {Minute: m0 + 1, Util: 3}}),
			},
		},
		{
			name: "no UUID: the key is host/index",
			files: [][]*finops.GPUSample{{{Host: "node-2", Index: 3, Model: "A10G", Time: t0, Util: new(50.0)},
				{Host: "node-2", Index: 3, Time: t0.Add(time.Second), Util: new(25.0)}}},
			from: t0, to: at(time.Hour),
			// (50 + 25) / 2 = 37.5
			want: []finops.GPUSeries{series(finops.GPUSeries{Key: "node-2/3", Host: "node-2", Index: 3, Model: "A10G", Interval: time.Minute}, []finops.MinuteUtil{{Minute: m0, Util: 37.5}})},
		},
		{
			name:  "nothing in range",
			files: [][]*finops.GPUSample{{smp("G", 0, new(20.0))}},
			from:  at(time.Hour), to: at(2 * time.Hour),
			want: nil,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			for i, f := range tt.files {
				sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization, Rows: len(f)}
				if i < len(tt.interval) {
					sum.SampleInterval = tt.interval[i]
				}
				mustImport(t, s, "smi-"+string(rune('a'+i))+".csv", feed(sum, nil, f, nil))
			}
			got, err := s.GPUSeries(ctx, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("GPUSeries() =\n%+v\nwant\n%+v", got, tt.want)
			}
			checkOutlines(t, s, tt.from, tt.to, tt.want)
		})
	}
}

// TestSampleIntervals: a GPU's interval for a window comes from the files
// that cover the window, not from a file outside it. One GPU logged at 60 s
// in week 1 (3 files) and, after a logger change, at 5 min in week 3: the
// week-1 report uses 60 s, the week-3 one 5 min, and a window over all of it
// the row-weighted median (3 × 1,000 rows at 60 s against 300 at 5 min: 60 s).
func TestSampleIntervals(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	week1, week3 := utc(2026, 11, 2, 0, 0, 0), utc(2026, 11, 16, 0, 0, 0)
	file := func(name string, start time.Time, interval time.Duration, rows int) {
		sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization, Rows: rows,
			PeriodStart: start, PeriodEnd: start.Add(time.Duration(rows-1) * interval), SampleInterval: interval}
		mustImport(t, s, name, feed(sum, nil, []*finops.GPUSample{{Host: "h", UUID: "G", Time: start, Util: new(50.0)}}, nil))
	}
	file("w1-a.csv", week1, time.Minute, 1000)
	file("w1-b.csv", week1.Add(24*time.Hour), time.Minute, 1000)
	file("w1-c.csv", week1.Add(48*time.Hour), time.Minute, 1000)
	file("w3.csv", week3, 5*time.Minute, 300)
	for _, tt := range []struct {
		name     string
		from, to time.Time
		want     time.Duration
	}{
		{"week 1", week1, week1.AddDate(0, 0, 7), time.Minute},
		{"week 3", week3, week3.AddDate(0, 0, 7), 5 * time.Minute},
		{"all of it", week1, week3.AddDate(0, 0, 7), time.Minute},
	} {
		got, err := s.GPUSeries(ctx, tt.from, tt.to)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Interval != tt.want {
			t.Errorf("%s: %+v, want one GPU at %v", tt.name, got, tt.want)
		}
	}
}

// TestWeightedMedian: rows weigh, not files. One file of 1,000 rows at
// 5 min and two of 10 rows at 60 s: by hand the total weight is 1,020, half
// 510; sorted, 60 s reaches 20 and 5 min 1,020 ≥ 510, so 5 min (a median of
// the files, unweighted, would say 60 s). Ties go to the lower value.
func TestWeightedMedian(t *testing.T) {
	for _, tt := range []struct {
		values, weights []int64
		want            int64
	}{
		{[]int64{300000, 60000, 60000}, []int64{1000, 10, 10}, 300000},
		{[]int64{60000, 300000}, []int64{5, 5}, 60000},
		{[]int64{15000}, []int64{1}, 15000},
	} {
		if got := weightedMedian(tt.values, tt.weights); got != tt.want {
			t.Errorf("weightedMedian(%v, %v) = %d, want %d", tt.values, tt.weights, got, tt.want)
		}
	}
}

func TestTaskRuns(t *testing.T) {
	ctx := context.Background()
	h := func(hour int) time.Time { return utc(2025, 3, 1, hour, 0, 0) }
	run := func(line int, task string, start, end time.Time, gpus []string, units string) *finops.TaskRun {
		r := &finops.TaskRun{Line: line, Task: task, Team: "ml", Kind: "inference", Resource: "i-1",
			GPUs: gpus, Start: start, End: end, Unit: "1M tokens"}
		if units != "" {
			r.Units = dec(units)
		}
		return r
	}
	s := openTest(t)
	mustImport(t, s, "tasks-1.csv", feed(&ingest.Summary{Kind: ingest.KindTasks}, nil, nil, []*finops.TaskRun{
		run(2, "a", h(8), h(10), nil, "0.000001000"), // ends at from: excluded from [10, 12)
		run(3, "b", h(9), h(11), []string{"GPU-1"}, ""),
		run(4, "c", h(12), h(13), nil, "5"), // starts at to: excluded
	}))
	// A newer file declares b's run (same task, resource, start) again: it
	// replaces the earlier one.
	mustImport(t, s, "tasks-2.csv", feed(&ingest.Summary{Kind: ingest.KindTasks}, nil, nil, []*finops.TaskRun{
		run(7, "b", h(9), h(12), []string{"GPU-1", "GPU-2"}, "42.10"),
	}))
	assertCounts(t, s, wantCounts(map[string]int{"source_files": 2, "tasks": 3, "task_runs": 3}))

	for _, tt := range []struct {
		name     string
		from, to time.Time
		want     []*finops.TaskRun
	}{
		{"[10, 12)", h(10), h(12), []*finops.TaskRun{run(7, "b", h(9), h(12), []string{"GPU-1", "GPU-2"}, "42.1")}},
		{"[8, 9)", h(8), h(9), []*finops.TaskRun{run(2, "a", h(8), h(10), nil, "0.000001")}},
		{"[12, 14)", h(12), h(14), []*finops.TaskRun{run(4, "c", h(12), h(13), nil, "5")}},
		{"[13, 14)", h(13), h(14), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.TaskRuns(ctx, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("TaskRuns() = %+v, want %d runs", got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if !decEq(g.Units, w.Units) {
					t.Errorf("run %d: Units = %v, want %v", i, g.Units, w.Units)
				}
				g.Units, w.Units = nil, nil
				if !reflect.DeepEqual(g, *w) {
					t.Errorf("run %d = %+v\nwant %+v", i, g, *w)
				}
			}
		})
	}
}

func TestSyncTeams(t *testing.T) {
	ctx := context.Background()
	type row struct {
		name, tag string
		budget    *float64
		leads     string
	}
	s := openTest(t)
	for _, step := range []struct {
		name  string
		teams []Team
		want  []row // by name
	}{
		{
			name: "first sync",
			teams: []Team{
				{Name: "ml", Tag: "team=ml", MonthlyBudget: new(12000.5), Leads: []string{"ana@x.io", "bo@x.io"}},
				{Name: "infra", Leads: []string{}},
			},
			want: []row{{"infra", "", nil, "[]"}, {"ml", "team=ml", new(12000.5), `["ana@x.io","bo@x.io"]`}},
		},
		{
			name: "replace: infra gone, ml changed, data added",
			teams: []Team{
				{Name: "ml", MonthlyBudget: new(0.0), Leads: []string{"cy@x.io"}},
				{Name: "data", Tag: "cc=42", Leads: []string{"di@x.io"}},
			},
			want: []row{{"data", "cc=42", nil, `["di@x.io"]`}, {"ml", "", new(0.0), `["cy@x.io"]`}},
		},
		{name: "sync to nothing", teams: nil, want: nil},
		{
			name:  "sync again after empty",
			teams: []Team{{Name: "ops", Leads: []string{"e@x.io"}}},
			want:  []row{{"ops", "", nil, `["e@x.io"]`}},
		},
	} {
		if err := s.SyncTeams(ctx, step.teams); err != nil {
			t.Fatalf("%s: SyncTeams: %v", step.name, err)
		}
		rows, err := s.DB().Query(`SELECT name, coalesce(tag,''), monthly_budget, leads FROM teams ORDER BY name`)
		if err != nil {
			t.Fatal(err)
		}
		var got []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.name, &r.tag, &r.budget, &r.leads); err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		rows.Close()
		if !reflect.DeepEqual(got, step.want) {
			t.Errorf("%s: teams = %+v, want %+v", step.name, got, step.want)
		}
		if c := counts(t, s)["teams"]; c != len(step.want) {
			t.Errorf("%s: Counts()[teams] = %d, want %d", step.name, c, len(step.want))
		}
	}

	// A failing sync (duplicate name violates the primary key) changes nothing.
	err := s.SyncTeams(ctx, []Team{{Name: "x"}, {Name: "x"}})
	if err == nil {
		t.Fatal("SyncTeams with a duplicate name succeeded")
	}
	var n int
	var name string
	if err := s.DB().QueryRow(`SELECT count(*), max(name) FROM teams`).Scan(&n, &name); err != nil || n != 1 || name != "ops" {
		t.Errorf("after failed sync: %d teams, %q, %v; want only ops", n, name, err)
	}
}
