package store

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// A database written before telemetry was rolled up keeps its numbers: the
// raw samples of schema 1 become the same per-minute means.
func TestMigrateSamplesToMinutes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db := oldSchema(t, path, 1)
	t0 := utc(2025, 3, 1, 10, 0, 0) // minute 29013720
	ms := t0.UnixMilli()
	for _, q := range []string{
		`PRAGMA user_version = 1`,
		`INSERT INTO source_files (id, uri, sha256, format, kind, rows, imported_at, sample_interval_ms) VALUES
			(1, 'a.csv', 'a', 'nvidia-smi', 'utilization', 3, 0, 30000),
			(2, 'b.csv', 'b', 'nvidia-smi', 'utilization', 1, 0, 90000)`,
		`INSERT INTO gpus (id, gpu_key, uuid, host, idx) VALUES (1, 'GPU-A', 'GPU-A', 'h', 0)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	// 10:00:05 util 20, 10:00:35 util 40 (file a), 10:00:50 N/A util (file b),
	// 10:01:00 util 7 (file a).
	for _, r := range []struct {
		ts       int64
		src      int
		util     any
		mem, pow float64
	}{{ms + 5000, 1, 20.0, 100, 50}, {ms + 35000, 1, 40.0, 300, 70}, {ms + 50000, 2, nil, 200, 60}, {ms + 60000, 1, 7.0, 1, 1}} {
		if _, err := db.Exec(`INSERT INTO gpu_samples (gpu_id, ts, source_id, util, mem_used_mib, power_w) VALUES (1,?,?,?,?,?)`,
			r.ts, r.src, r.util, r.mem, r.pow); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.GPUSeries(ctx, t0, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// (20 + 40) / 2 = 30 in 10:00, 7 in 10:01; the interval is the
	// row-weighted median of the GPU's two files (30 s over 3 rows, 90 s
	// over 1): 30 s. Power: every sample's, the one without utilization too:
	// (50 + 70 + 60) / 3 = 60 W in 10:00, 1 W in 10:01.
	want := []finops.GPUSeries{seriesPower(finops.GPUSeries{Key: "GPU-A", Host: "h", UUID: "GPU-A", Index: 0, Interval: 30 * time.Second}, []finops.MinuteUtil{{Minute: 29013720, Util: 30}, {Minute: 29013721, Util: 7}}, 60, 1)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("GPUSeries = %+v, want %+v", got, want)
	}
	var n, utilN, powerN int
	var mem, power float64
	var offsets []byte
	var src int64
	if err := s.DB().QueryRow(`SELECT n, util_n, mem_used_max, power_sum, power_n, offsets, source_id FROM gpu_minutes WHERE minute = 29013720`).
		Scan(&n, &utilN, &mem, &power, &powerN, &offsets, &src); err != nil {
		t.Fatal(err)
	}
	// 5000, 35000, 50000 ms = 0x1388, 0x88B8, 0xC350.
	if n != 3 || utilN != 2 || mem != 300 || power != 180 || powerN != 3 || string(offsets) != "\x13\x88\x88\xb8\xc3\x50" || src != 1 {
		t.Errorf("minute row: n %d utilN %d mem %v power %v/%d offsets % x source %d", n, utilN, mem, power, powerN, offsets, src)
	}
	// A sample delivered again after the migration is recognised.
	mustImport(t, s, "a-again.csv", feed(&ingest.Summary{Kind: ingest.KindUtilization}, nil,
		[]*finops.GPUSample{{UUID: "GPU-A", Index: -1, Time: t0.Add(35 * time.Second), Util: new(99.0)}}, nil))
	if got, _ := s.GPUSeries(ctx, t0, t0.Add(time.Hour)); got[0].Minutes()[0].Util != 30 {
		t.Errorf("after re-delivery: %+v", got[0].Minutes())
	}
}

// Samples out of order within one file, duplicates within it and partial
// overlaps with an earlier file: each instant counts once, the first
// delivery wins.
func TestMinuteRollupOrderAndDuplicates(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	t0 := utc(2025, 3, 1, 10, 0, 0)
	smp := func(d time.Duration, util float64) *finops.GPUSample {
		return &finops.GPUSample{UUID: "G", Index: -1, Time: t0.Add(d), Util: new(util), MemUsed: new(util * 10)}
	}
	sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization}
	mustImport(t, s, "a.csv", feed(sum, nil, []*finops.GPUSample{
		smp(0, 10), smp(time.Minute, 50), smp(20*time.Second, 30), // back into minute 0: merged
		smp(20*time.Second, 99), // same instant again in the same file: the first wins
	}, nil))
	mustImport(t, s, "b.csv", feed(sum, nil, []*finops.GPUSample{
		smp(20*time.Second, 77), // delivered before: ignored
		smp(40*time.Second, 20), // new: added
		smp(time.Minute+time.Second, 70),
	}, nil))
	got, err := s.GPUSeries(ctx, t0, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// minute 0: 10, 30, 20 → 20; minute 1: 50, 70 → 60.
	want := []finops.MinuteUtil{{Minute: 29013720, Util: 20}, {Minute: 29013721, Util: 60}}
	if len(got) != 1 || !reflect.DeepEqual(got[0].Minutes(), want) {
		t.Fatalf("GPUSeries = %+v, want minutes %v", got, want)
	}
	var mem float64
	var n int
	if err := s.DB().QueryRow(`SELECT n, mem_used_max FROM gpu_minutes WHERE minute = 29013720`).Scan(&n, &mem); err != nil {
		t.Fatal(err)
	}
	if n != 3 || mem != 300 {
		t.Errorf("minute 0: n %d mem %v, want 3 and 300", n, mem)
	}
	// The GPU was reported by both files.
	var sources int
	if err := s.DB().QueryRow(`SELECT count(*) FROM gpu_sources`).Scan(&sources); err != nil || sources != 2 {
		t.Errorf("gpu_sources = %d, %v; want 2", sources, err)
	}
	if ok, err := s.HasSource(ctx, "b.csv"); !ok || err != nil {
		t.Errorf("HasSource(b.csv) = %v, %v", ok, err)
	}
	if ok, err := s.HasSource(ctx, "c.csv"); ok || err != nil {
		t.Errorf("HasSource(c.csv) = %v, %v", ok, err)
	}
}

func TestMinuteOf(t *testing.T) {
	for _, c := range []struct {
		ms  int64
		min int64
		off uint16
	}{{0, 0, 0}, {59999, 0, 59999}, {60000, 1, 0}, {-1, -1, 59999}, {-60000, -1, 0}} {
		if m, o := minuteOf(c.ms); m != c.min || o != c.off {
			t.Errorf("minuteOf(%d) = %d, %d; want %d, %d", c.ms, m, o, c.min, c.off)
		}
	}
}
