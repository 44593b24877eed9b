package store

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// coldDay is the test's day 1, 2025-03-01: unix day 20148, minute 29013120.
var coldDay = utc(2025, 3, 1, 0, 0, 0)

const coldM0 = 29013120

// coldSample is one GPU-A sample at offset at from coldDay; power is an
// integer so that its day sum is exact in any order of addition.
func coldSample(at time.Duration, util *float64, mem, power float64) *finops.GPUSample {
	return &finops.GPUSample{UUID: "GPU-A", Index: -1, Time: coldDay.Add(at), Util: util, MemUsed: new(mem), PowerWatt: new(power)}
}

func hm(h, m, s int) time.Duration {
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second
}

// coldSamples: two days of one GPU, in time order. The means by hand, in
// minutes from coldM0:
//
//	600  (10:00)  10, 20          → 15
//	601  (10:01)  30, 40 | 50, 60 → 45 (split between two files below)
//	602  (10:02)  70              → 70
//	603  (10:03)  memory only     → no utilization
//	1439 (23:59)  8               → 8
//	1440 (day 2 00:00) 50         → 50
//	1441 (day 2 00:01) 1, then 99 at the same instant → 1 (the first wins)
func coldSamples() []*finops.GPUSample {
	return []*finops.GPUSample{
		coldSample(hm(10, 0, 0), new(10.0), 100, 10),
		coldSample(hm(10, 0, 30), new(20.0), 200, 20),
		coldSample(hm(10, 1, 0), new(30.0), 300, 30),
		coldSample(hm(10, 1, 15), new(40.0), 400, 40),
		coldSample(hm(10, 1, 30), new(50.0), 500, 50), // coldSplit: the second file starts here
		coldSample(hm(10, 1, 45), new(60.0), 600, 60),
		coldSample(hm(10, 2, 0), new(70.0), 700, 70),
		coldSample(hm(10, 3, 10), nil, 900, 90),
		coldSample(hm(23, 59, 30), new(8.0), 800, 80),
		coldSample(hm(24, 0, 10), new(50.0), 50, 5),
		coldSample(hm(24, 1, 5), new(1.0), 10, 1),
		coldSample(hm(24, 1, 5), new(99.0), 9999, 999),
	}
}

const coldSplit = 4

var coldWant = []finops.MinuteUtil{
	{Minute: coldM0 + 600, Util: 15}, {Minute: coldM0 + 601, Util: 45}, {Minute: coldM0 + 602, Util: 70}, {Minute: coldM0 + 1439, Util: 8}, {Minute: coldM0 + 1440, Util: 50}, {Minute: coldM0 + 1441, Util: 1},
}

// coldDayRow is a gpu_days row as stored.
type coldDayRow struct {
	day, minutes  int64
	util, power   string // hex; power '' when NULL
	mem, powerSum float64
	powerN        int64
}

// String leaves the blobs out: 11,520 hex digits say nothing in a message.
func (r coldDayRow) String() string {
	return fmt.Sprintf("{day %d: %d minutes, memory %v, power %v from %d}", r.day, r.minutes, r.mem, r.powerSum, r.powerN)
}

func coldDayRows(t *testing.T, s *Store) []coldDayRow {
	t.Helper()
	rows, err := s.DB().Query(`SELECT day, minutes, hex(util), coalesce(hex(power), ''), mem_used_max, power_sum, power_n FROM gpu_days ORDER BY day`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []coldDayRow
	for rows.Next() {
		var r coldDayRow
		if err := rows.Scan(&r.day, &r.minutes, &r.util, &r.power, &r.mem, &r.powerSum, &r.powerN); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func coldSeries(t *testing.T, s *Store) []finops.MinuteUtil {
	t.Helper()
	got, err := s.GPUSeries(context.Background(), coldDay, coldDay.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("GPUSeries: %d GPUs, want 1", len(got))
	}
	return got[0].Minutes()
}

func importCold(t *testing.T, s *Store, uri string, before time.Time, samples []*finops.GPUSample) {
	t.Helper()
	sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization}
	res, err := s.Import(context.Background(), FileMeta{URI: uri, SHA256: shaOf(uri), CompactBefore: before}, feed(sum, nil, samples, nil))
	if err != nil {
		t.Fatalf("Import(%s): %v", uri, err)
	}
	if res.Duplicate {
		t.Fatalf("Import(%s): unexpected duplicate", uri)
	}
}

func minuteRows(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM gpu_minutes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestColdDaysAgreeWithCompaction: days older than the cut written straight
// into gpu_days, from one file or from two that split a minute, give the
// same series and the same day rows as minute rows compacted afterwards.
func TestColdDaysAgreeWithCompaction(t *testing.T) {
	ctx := context.Background()
	cut := coldDay.Add(72 * time.Hour) // both days are old
	all := coldSamples()
	for _, tc := range []struct {
		name  string
		files [][]*finops.GPUSample
		cut   time.Time // zero: minute rows, compacted after
		// Minute rows left by the imports before the compaction: only
		// each file's first and last old minute when the days go
		// straight into gpu_days.
		rows int
	}{
		{"hot, compacted after", [][]*finops.GPUSample{all}, time.Time{}, 7},
		{"one old file", [][]*finops.GPUSample{all}, cut, 2},                                               // 600, 1441
		{"two old files splitting 10:01", [][]*finops.GPUSample{all[:coldSplit], all[coldSplit:]}, cut, 3}, // 600, 601 (merged), 1441
		{"two hot files", [][]*finops.GPUSample{all[:coldSplit], all[coldSplit:]}, time.Time{}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openTest(t)
			for i, f := range tc.files {
				importCold(t, s, fmt.Sprintf("f%d.csv", i), tc.cut, f)
			}
			if n := minuteRows(t, s); n != tc.rows {
				t.Errorf("%d minute rows before the compaction, want %d", n, tc.rows)
			}
			if got := coldSeries(t, s); !reflect.DeepEqual(got, coldWant) {
				t.Errorf("before the compaction: %v, want %v", got, coldWant)
			}
			if _, err := s.CompactTelemetry(ctx, cut); err != nil {
				t.Fatal(err)
			}
			if got := coldSeries(t, s); !reflect.DeepEqual(got, coldWant) {
				t.Errorf("after the compaction: %v, want %v", got, coldWant)
			}
			// Day 1: 5 minutes with a sample (600–603, 1439), 4 with
			// utilization; memory at most 900; power 10+…+90 = 450 from 9.
			// Day 2: 50 and 10 (the repeated instant is not counted).
			want := []coldDayRow{{day: 20148, minutes: 4, mem: 900, powerSum: 450, powerN: 9},
				{day: 20149, minutes: 2, mem: 50, powerSum: 6, powerN: 2}}
			got := coldDayRows(t, s)
			if len(got) != len(want) {
				t.Fatalf("gpu_days = %v, want 2 days", got)
			}
			for i := range want {
				g := got[i]
				g.util, g.power = "", ""
				if g != want[i] {
					t.Errorf("day %d = %v, want %v", want[i].day, g, want[i])
				}
			}
			// Each minute's mean power, by hand from coldSamples: 10:00
			// (10+20)/2, 10:01 (30+40+50+60)/4, 10:02 70, 10:03 90 (a
			// minute without utilization keeps its power, which no series
			// reads), 23:59 80; day 2 00:00 5, 00:01 1 (the first at its
			// instant wins).
			for _, d := range []struct {
				day  int64
				want map[int]int
			}{{20148, map[int]int{600: 15, 601: 45, 602: 70, 603: 90, 1439: 80}}, {20149, map[int]int{0: 5, 1: 1}}} {
				if got := dayWatts(t, s, "GPU-A", d.day); !reflect.DeepEqual(got, d.want) {
					t.Errorf("day %d watts %v, want %v", d.day, got, d.want)
				}
			}
		})
	}
}

// TestColdDayLaterDeliveries: an old day that gets more samples later is
// merged, never overwritten: a new minute is added, a minute it has keeps
// its mean, and the same samples delivered again change nothing.
func TestColdDayLaterDeliveries(t *testing.T) {
	ctx := context.Background()
	cut := coldDay.Add(72 * time.Hour)
	s := openTest(t)
	importCold(t, s, "all.csv", cut, coldSamples())
	if _, err := s.CompactTelemetry(ctx, cut); err != nil {
		t.Fatal(err)
	}
	before := coldDayRows(t, s)

	// The same bytes again are a no-op by their sha256.
	sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization}
	if res, err := s.Import(ctx, FileMeta{URI: "all-again.csv", SHA256: shaOf("all.csv"), CompactBefore: cut},
		feed(sum, nil, coldSamples(), nil)); err != nil || !res.Duplicate {
		t.Fatalf("same bytes again: %+v, %v; want a duplicate", res, err)
	}
	// The same samples in another file (an overlapping log): every minute
	// with a utilization is stored, so the means, memory and the power of
	// those minutes do not change. A day keeps no mark for a minute that
	// had only memory and power (10:03): its power is counted again, as
	// CompactTelemetry has always done with such a minute.
	importCold(t, s, "overlap.csv", cut, coldSamples())
	if _, err := s.CompactTelemetry(ctx, cut); err != nil {
		t.Fatal(err)
	}
	if got := coldSeries(t, s); !reflect.DeepEqual(got, coldWant) {
		t.Errorf("after the same samples again: %v, want %v", got, coldWant)
	}
	before[0].powerSum, before[0].powerN = 450+90, 9+1
	if got := coldDayRows(t, s); !reflect.DeepEqual(got, before) {
		t.Errorf("after the same samples again: gpu_days %v, want %v", got, before)
	}

	// A late log: 10:00 has a mean (15) and keeps it, its memory and power
	// are not added; 11:00 and 12:00 are new.
	importCold(t, s, "late.csv", cut, []*finops.GPUSample{
		coldSample(hm(10, 0, 50), new(100.0), 9999, 999),
		coldSample(hm(11, 0, 0), new(70.0), 110, 7),
		coldSample(hm(12, 0, 0), new(80.0), 120, 8),
	})
	if _, err := s.CompactTelemetry(ctx, cut); err != nil {
		t.Fatal(err)
	}
	want := append([]finops.MinuteUtil{}, coldWant[:3]...)
	want = append(want, finops.MinuteUtil{Minute: coldM0 + 660, Util: 70}, finops.MinuteUtil{Minute: coldM0 + 720, Util: 80})
	want = append(want, coldWant[3:]...)
	if got := coldSeries(t, s); !reflect.DeepEqual(got, want) {
		t.Errorf("after the late log: %v, want %v", got, want)
	}
	// Day 1: 4 + 2 minutes with utilization; power 540 + 7 + 8 from 12.
	if got := coldDayRows(t, s)[0]; got.minutes != 6 || got.mem != 900 || got.powerSum != 555 || got.powerN != 12 {
		t.Errorf("day 1 after the late log: %v, want 6 minutes, memory 900, power 555 from 12", got)
	}
	// Per minute, 10:00 keeps 15 W (not the late 999 W), 11:00 and 12:00
	// take 7 W and 8 W.
	wantWatts := map[int]int{600: 15, 601: 45, 602: 70, 603: 90, 660: 7, 720: 8, 1439: 80}
	if got := dayWatts(t, s, "GPU-A", 20148); !reflect.DeepEqual(got, wantWatts) {
		t.Errorf("day 1 watts after the late log: %v, want %v", got, wantWatts)
	}
}

// TestColdDayOutOfOrder: samples that go back in time within one file (a
// host's clock stepped back). A minute that comes back within foldLag
// minutes of the GPU's latest is merged sample by sample, as minute rows
// merge it; one that comes back after it was folded into the day (a step
// back of more than foldLag) keeps the day's mean — what a compacted day
// does with a late sample — where minute rows would have merged it.
func TestColdDayOutOfOrder(t *testing.T) {
	ctx := context.Background()
	cut := coldDay.Add(72 * time.Hour)
	samples := []*finops.GPUSample{
		coldSample(hm(10, 0, 0), new(10.0), 1, 1),
		coldSample(hm(10, 1, 0), new(30.0), 1, 1),
		coldSample(hm(10, 2, 0), new(70.0), 1, 1),
		coldSample(hm(10, 3, 0), new(40.0), 1, 1),
		coldSample(hm(10, 1, 30), new(50.0), 1, 1), // back to 10:01, two minutes behind
		coldSample(hm(10, 3, 30), new(60.0), 1, 1), // back to 10:03, the latest
	}
	// The same, then a jump to 11:02 that folds 10:01 (61 minutes behind),
	// and a sample back at 10:01 again.
	far := append(slices.Clone(samples),
		coldSample(hm(11, 2, 0), new(20.0), 1, 1),
		coldSample(hm(10, 1, 45), new(90.0), 1, 1))
	for _, tc := range []struct {
		name    string
		cut     time.Time
		samples []*finops.GPUSample
		at1     float64 // 10:01
		later   []finops.MinuteUtil
	}{
		{"hot", time.Time{}, samples, 40, nil}, // (30 + 50) / 2
		{"old", cut, samples, 40, nil},
		{"hot, far back", time.Time{}, far, float64(float32(170.0 / 3)), []finops.MinuteUtil{{Minute: coldM0 + 662, Util: 20}}}, // (30 + 50 + 90) / 3
		{"old, far back", cut, far, 40, []finops.MinuteUtil{{Minute: coldM0 + 662, Util: 20}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openTest(t)
			importCold(t, s, "log.csv", tc.cut, tc.samples)
			if _, err := s.CompactTelemetry(ctx, cut); err != nil {
				t.Fatal(err)
			}
			want := []finops.MinuteUtil{{Minute: coldM0 + 600, Util: 10}, {Minute: coldM0 + 601, Util: tc.at1}, {Minute: coldM0 + 602, Util: 70}, {Minute: coldM0 + 603, Util: 50}}
			want = append(want, tc.later...)
			if got := coldSeries(t, s); !reflect.DeepEqual(got, want) {
				t.Errorf("%v, want %v", got, want)
			}
		})
	}
}

// TestColdDaysBesideHotBatches: a file whose samples alternate between old
// days and hot ones, so GPU-days are written while the minute writer's
// goroutine inserts full batches on the same transaction (run with -race),
// gives what minute rows compacted afterwards give.
func TestColdDaysBesideHotBatches(t *testing.T) {
	ctx := context.Background()
	cut := coldDay.Add(72 * time.Hour)
	var samples []*finops.GPUSample
	for i := range 2000 { // 2,000 minutes a GPU: old ones into day 2, and hot ones
		for g := range 4 {
			id := fmt.Sprintf("GPU-%d", g)
			u := float64((i*7 + g*13) % 101)
			samples = append(samples,
				&finops.GPUSample{UUID: id, Index: -1, Time: coldDay.Add(time.Duration(i) * time.Minute), Util: new(u)},
				&finops.GPUSample{UUID: id, Index: -1, Time: cut.Add(24*time.Hour + time.Duration(i)*time.Minute), Util: new(100 - u)})
		}
	}
	load := func(before time.Time) []finops.GPUSeries {
		t.Helper()
		s := openTest(t)
		importCold(t, s, "mixed.csv", before, samples)
		if _, err := s.CompactTelemetry(ctx, cut); err != nil {
			t.Fatal(err)
		}
		got, err := s.GPUSeries(ctx, coldDay, cut.Add(96*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		checkOutlines(t, s, coldDay, cut.Add(96*time.Hour), got)
		return got
	}
	want, got := load(time.Time{}), load(cut)
	if len(want) != 4 || want[0].Len() != 4000 {
		t.Fatalf("minute rows compacted: %d GPUs, want 4 of 4,000 minutes each", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("old days written directly differ from minute rows compacted")
	}
}
