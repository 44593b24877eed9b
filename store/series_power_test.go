package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/ingest"
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
// rows, and from a compacted day its mean over the day when the day has a
// power reading for each minute with utilization, else none; a GPU that
// never reported power has none.
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
		smp("GPU-A", 10*h+5*time.Second, f64(20), f64(50)),
		smp("GPU-A", 10*h+35*time.Second, f64(40), f64(70)),
		smp("GPU-A", 10*h+2*time.Minute, f64(30), f64(90)),
		// Day 2: 00:00 at 200 W, 00:01 and 00:02 without power: 3 minutes, 1 reading.
		smp("GPU-A", 24*h, f64(50), f64(200)),
		smp("GPU-A", 24*h+time.Minute, f64(50), nil),
		smp("GPU-A", 24*h+2*time.Minute, f64(50), nil),
		// Day 3 stays hot: 12:00 at 300 W, 12:01 without.
		smp("GPU-A", 60*h, f64(60), f64(300)),
		smp("GPU-A", 60*h+time.Minute, f64(60), nil),
		// GPU-B never reports power.
		smp("GPU-B", 10*h, f64(10), nil),
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
	hot := map[int64]float64{m0 + 600: 60, m0 + 602: 90, m0 + 1440: 200, m0 + 1441: -1, m0 + 1442: -1,
		m0 + 3600: 300, m0 + 3601: -1}
	// Compacted: day 1 has 3 readings for 2 minutes, each takes (50+70+90)/3
	// = 70 W; day 2 has 1 reading for 3 minutes: which minute had it is
	// unknown, so none has power.
	compacted := map[int64]float64{m0 + 600: 70, m0 + 602: 70, m0 + 1440: -1, m0 + 1441: -1, m0 + 1442: -1,
		m0 + 3600: 300, m0 + 3601: -1}
	gpuB := map[int64]float64{m0 + 600: -1}
	cases := []struct {
		name    string
		compact bool
		want    map[int64]float64
	}{{"minute rows", false, hot}, {"compacted days", true, compacted}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.compact {
				if _, err := s.CompactTelemetry(ctx, d0.Add(53*h)); err != nil {
					t.Fatal(err)
				}
			}
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
