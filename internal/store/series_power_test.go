package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// seriesPower is series (helpers_test.go) with each minute's power in watts.
func seriesPower(g finops.GPUSeries, ms []finops.MinuteUtil, watts ...float64) finops.GPUSeries {
	for i, m := range ms {
		g.AddPower(m.Minute, m.Util, watts[i])
	}
	return g
}

// minutePower lists a series' minutes with their power (W), -1 for none.
func minutePower(g *finops.GPUSeries) map[int64]float64 {
	out := map[int64]float64{}
	i := 0
	for m := range g.All() {
		out[m] = -1
		if w, ok := g.PowerAt(i); ok {
			out[m] = float64(w)
		}
		i++
	}
	return out
}

// TestSeriesPower: the series carry each minute's mean power from minute
// rows, and the same watts from a compacted day (its power blob, schema 14):
// a day whose minutes drew two levels of power reads each minute's own, not
// the day's mean. A day compacted before schema 14 (no blob) reads its mean
// over the day when it has a power reading for each minute with
// utilization, else none. A GPU that never reported power has none, and its
// day stores no blob.
func TestSeriesPower(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	d0 := utc(2025, 3, 1, 0, 0, 0) // minute 29013120
	const m0 = 29013120
	smp := func(uuid string, at time.Duration, util, power *float64) *finops.GPUSample {
		return &finops.GPUSample{UUID: uuid, Index: -1, Time: d0.Add(at), Util: util, PowerWatt: power}
	}
	h := time.Hour
	sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization}
	mustImport(t, s, "a.csv", feed(sum, nil, []*finops.GPUSample{
		// Day 1: 10:00 two samples (50 W, 70 W), 10:02 one (90 W): 2 minutes, 3 readings.
		smp("GPU-A", 10*h+5*time.Second, new(20.0), new(50.0)),
		smp("GPU-A", 10*h+35*time.Second, new(40.0), new(70.0)),
		smp("GPU-A", 10*h+2*time.Minute, new(30.0), new(90.0)),
		// Day 2: 00:00 at 200 W, 00:01 and 00:02 without power: 3 minutes, 1 reading.
		smp("GPU-A", 24*h, new(50.0), new(200.0)),
		smp("GPU-A", 24*h+time.Minute, new(50.0), nil),
		smp("GPU-A", 24*h+2*time.Minute, new(50.0), nil),
		// Day 3 stays hot: 12:00 at 300 W, 12:01 without.
		smp("GPU-A", 60*h, new(60.0), new(300.0)),
		smp("GPU-A", 60*h+time.Minute, new(60.0), nil),
		// GPU-B never reports power.
		smp("GPU-B", 10*h, new(10.0), nil),
	}, nil))
	load := func() map[string]map[int64]float64 {
		t.Helper()
		got, err := s.GPUSeries(ctx, d0, d0.Add(72*h))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]map[int64]float64{}
		for i := range got {
			if got[i].Key == "GPU-B" && got[i].HasPower() {
				t.Errorf("GPU-B has power")
			}
			out[got[i].Key] = minutePower(&got[i])
			// An outline's LoadSeries reads the same power.
			outline := got[i].Identity()
			first, last, _ := got[i].Span()
			outline.SetSpan(first, last)
			one, err := s.LoadSeries(ctx, &outline, d0, d0.Add(72*h))
			if err != nil {
				t.Fatal(err)
			}
			if p := minutePower(&one); !reflect.DeepEqual(p, out[got[i].Key]) {
				t.Errorf("LoadSeries of %s: %v, want %v", got[i].Key, p, out[got[i].Key])
			}
		}
		return out
	}
	// Per minute: 10:00 (50+70)/2 = 60 W, 10:02 90 W; day 2 00:00 200 W,
	// 00:01 and 00:02 none; day 3 (hot in every case) 12:00 300 W.
	hot := map[int64]float64{m0 + 600: 60, m0 + 602: 90, m0 + 1440: 200, m0 + 1441: -1, m0 + 1442: -1,
		m0 + 3600: 300, m0 + 3601: -1}
	// Compacted before schema 14: day 1 has 3 readings for 2 minutes, each
	// takes (50+70+90)/3 = 70 W; day 2 has 1 reading for 3 minutes: which
	// minute had it is unknown, so none has power.
	dayMean := map[int64]float64{m0 + 600: 70, m0 + 602: 70, m0 + 1440: -1, m0 + 1441: -1, m0 + 1442: -1,
		m0 + 3600: 300, m0 + 3601: -1}
	gpuB := map[int64]float64{m0 + 600: -1}
	cases := []struct {
		name    string
		prepare func(t *testing.T)
		want    map[int64]float64
	}{
		{"minute rows", func(*testing.T) {}, hot},
		{"compacted days", func(t *testing.T) {
			if _, err := s.CompactTelemetry(ctx, d0.Add(53*h)); err != nil {
				t.Fatal(err)
			}
			var withPower, without int
			if err := s.DB().QueryRow(`SELECT count(power), count(*) - count(power) FROM gpu_days`).Scan(&withPower, &without); err != nil {
				t.Fatal(err)
			}
			// GPU-A's two days have power, GPU-B's one day has none.
			if withPower != 2 || without != 1 {
				t.Errorf("gpu_days: %d with a power blob, %d without; want 2 and 1", withPower, without)
			}
		}, hot},
		{"days compacted before schema 14", func(t *testing.T) {
			if _, err := s.DB().Exec(`UPDATE gpu_days SET power = NULL`); err != nil {
				t.Fatal(err)
			}
		}, dayMean},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.prepare(t)
			got := load()
			if !reflect.DeepEqual(got["GPU-A"], c.want) {
				t.Errorf("GPU-A: %v, want %v", got["GPU-A"], c.want)
			}
			if !reflect.DeepEqual(got["GPU-B"], gpuB) {
				t.Errorf("GPU-B: %v, want %v", got["GPU-B"], gpuB)
			}
		})
	}
}

// dayWatts decodes the power blob of GPU key's day: minute of the day →
// watts, only the minutes with a reading; nil for a NULL blob.
func dayWatts(t *testing.T, s *Store, key string, day int64) map[int]int {
	t.Helper()
	var b []byte
	if err := s.DB().QueryRow(`SELECT d.power FROM gpu_days d JOIN gpus g ON g.id = d.gpu_id WHERE g.gpu_key = ? AND d.day = ?`,
		key, day).Scan(&b); err != nil {
		t.Fatal(err)
	}
	if b == nil {
		return nil
	}
	var p [dayMinutes]uint16
	if err := decodePower(b, &p); err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for i, w := range p {
		if w != dayNoPower {
			out[i] = int(w)
		}
	}
	return out
}
