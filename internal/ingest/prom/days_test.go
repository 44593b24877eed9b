package prom

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/canceltest"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
)

// history is what both servers' backfill builders take.
type history interface {
	Family(name string)
	Sample(labels []string, at time.Time, v string)
}

// fleetHistory writes days of dcgm-exporter history for gpus GPUs (two a
// host), a sample a minute: on day d, GPU g is busy (90 %) for its first
// 60×(g+d+1) minutes and idle (5 %) after, with g+1 GiB of framebuffer used
// all day. checkFleet knows what that must read back as.
func fleetHistory(h history, gpus, days int) {
	fleetUtilization(h, gpus, days)
	h.Family(dcgm.FBUsed)
	for g := range gpus {
		labels, v := fleetLabels(g), fmt.Sprint(1024*(g+1))
		for m := range days * 1440 {
			h.Sample(labels, day0.Add(time.Duration(m)*time.Minute), v)
		}
	}
}

// fleetUtilization is fleetHistory's utilization alone.
func fleetUtilization(h history, gpus, days int) {
	h.Family(dcgm.GPUUtil)
	for g := range gpus {
		labels := fleetLabels(g)
		for d := range days {
			for m := range 1440 {
				v := "5"
				if m < 60*(g+d+1) {
					v = "90"
				}
				h.Sample(labels, day0.Add(time.Duration(d*1440+m)*time.Minute), v)
			}
		}
	}
}

// fleetLabels are GPU g's dcgm-exporter labels: two GPUs a host.
func fleetLabels(g int) []string {
	return []string{"gpu", fmt.Sprint(g % 2), "UUID", fmt.Sprintf("GPU-fleet-%d", g),
		"modelName", "NVIDIA H100 80GB HBM3", "Hostname", fmt.Sprintf("node-%d", g/2)}
}

// checkFleet checks days kept from fleetHistory: in day order, each with
// 1,440 samples a GPU; GPU g on day d busy for 60×(g+d+1) minutes, so its
// utilization sums to 90×busy + 5×(1440−busy) = 7200 + 85×busy (by hand:
// 7200 + 5100×(g+d+1)), and 1024×(g+1) MiB used at every minute.
func checkFleet(t *testing.T, kept []*Day, gpus, days int) {
	t.Helper()
	if len(kept) != days {
		t.Fatalf("%d days kept, want %d", len(kept), days)
	}
	for d, day := range kept {
		if want := day0.AddDate(0, 0, d); !day.Start.Equal(want) || !day.Complete {
			t.Fatalf("day %d: start %s complete %v, want %s complete", d, day.Start, day.Complete, want)
		}
		if day.Samples != gpus*1440 {
			t.Errorf("day %d: %d samples, want %d", d, day.Samples, gpus*1440)
		}
		sink := &recSink{}
		if _, err := day.Replay(t.Context(), sink); err != nil {
			t.Fatal(err)
		}
		type tally struct {
			n, busy  int
			sum, mem float64
		}
		per := map[string]*tally{}
		for _, s := range sink.samples {
			x := per[s.UUID]
			if x == nil {
				x = &tally{}
				per[s.UUID] = x
			}
			if s.Util == nil || s.MemUsed == nil || s.Model != "H100" {
				t.Fatalf("day %d: %s at %s: util %v, memory %v, model %q", d, s.UUID, s.Time, s.Util, s.MemUsed, s.Model)
			}
			x.n++
			x.sum += *s.Util
			if *s.Util == 90 {
				x.busy++
			}
			x.mem += *s.MemUsed
		}
		for g := range gpus {
			x, busy := per[fmt.Sprintf("GPU-fleet-%d", g)], 60*(g+d+1)
			if x == nil || x.n != 1440 || x.busy != busy || x.sum != float64(7200+5100*(g+d+1)) || x.mem != float64(1440*1024*(g+1)) {
				t.Errorf("day %d GPU %d: %+v, want 1440 samples, %d busy, utilization sum %d, memory sum %d",
					d, g, x, busy, 7200+5100*(g+d+1), 1440*1024*(g+1))
			}
		}
	}
}

// fetchFleet fetches days of the fleet from url, concurrent at a time.
func fetchFleet(t *testing.T, url string, days, concurrent int) []*Day {
	t.Helper()
	q, _ := DefaultQueries(ExporterDCGM)
	c, err := New(Source{Name: "fleet", URL: url, Queries: q, ConcurrentDays: concurrent})
	if err != nil {
		t.Fatal(err)
	}
	var want []time.Time
	for d := range days {
		want = append(want, day0.AddDate(0, 0, d))
	}
	var kept []*Day
	if err := c.FetchDays(t.Context(), want, day0.AddDate(0, 0, days+1), func(d *Day) error {
		kept = append(kept, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return kept
}

// TestFetchDaysRealPrometheus: three days of six GPUs from a real
// Prometheus, two days at a time, read back as fleetHistory wrote them.
func TestFetchDaysRealPrometheus(t *testing.T) {
	var om promtest.OpenMetrics
	fleetHistory(&om, 6, 3)
	srv := promtest.Start(t, om.Bytes())
	checkFleet(t, fetchFleet(t, srv.URL, 3, 2), 6, 3)
}

// TestFetchDaysVictoriaMetrics: the same history imported into
// VictoriaMetrics' single-node server through /api/v1/import/prometheus, read
// with the same queries (dcgm's `or` and sums are MetricsQL too), gives the
// same numbers.
func TestFetchDaysVictoriaMetrics(t *testing.T) {
	var ex promtest.Exposition
	fleetHistory(&ex, 6, 3)
	srv := promtest.StartVictoriaMetrics(t, ex.Bytes())
	checkFleet(t, fetchFleet(t, srv.URL, 3, 2), 6, 3)
}

// TestFetchDaysConcurrently: against a server that answers later days
// sooner (day i waits (n−i)×15 ms), the days are still kept in the order
// given; no more than concurrent_days requests are ever in flight, and as
// many as that are (so the days do overlap); and no day is asked for before
// the day concurrent_days before it was kept, which is what bounds memory.
func TestFetchDaysConcurrently(t *testing.T) {
	const n = 6
	for _, concurrent := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprint(concurrent), func(t *testing.T) {
			var inFlight, most, asked atomic.Int32
			s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				cur := inFlight.Add(1)
				defer inFlight.Add(-1)
				for {
					m := most.Load()
					if cur <= m || most.CompareAndSwap(m, cur) {
						break
					}
				}
				day := int(formTime(r, "start").Sub(day0) / (24 * time.Hour))
				asked.Store(max(asked.Load(), int32(day)+1))
				time.Sleep(time.Duration(n-day) * 15 * time.Millisecond)
				matrix(w, r)
			})
			c, err := New(Source{URL: s.URL, Queries: Queries{Util: "u"}, ConcurrentDays: concurrent})
			if err != nil {
				t.Fatal(err)
			}
			var days []time.Time
			for i := range n {
				days = append(days, day0.AddDate(0, 0, i))
			}
			var kept []time.Time
			err = c.FetchDays(t.Context(), days, day0.AddDate(0, 0, n+1), func(d *Day) error {
				// Day i is being kept: days up to i+concurrent−1 may be asked, no later.
				if a := int(asked.Load()); a > len(kept)+concurrent {
					t.Errorf("keeping day %d with %d days asked: more than %d held", len(kept), a, concurrent)
				}
				kept = append(kept, d.Start)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range days {
				if i >= len(kept) || !kept[i].Equal(days[i]) {
					t.Fatalf("kept %v, want %v", kept, days)
				}
			}
			if want := int32(min(concurrent, n)); most.Load() != want {
				t.Errorf("at most %d requests in flight, want %d", most.Load(), want)
			}
		})
	}
}

// TestFetchDaysStops: the first day the server does not answer ends the
// fetch with that day's FetchError and keeps none after it (they are
// missing too); an error from keep ends it the same way; and a cancel
// while every request hangs returns within a second.
func TestFetchDaysStops(t *testing.T) {
	var days []time.Time
	for i := range 5 {
		days = append(days, day0.AddDate(0, 0, i))
	}
	now := day0.AddDate(0, 0, 6)
	t.Run("a day not answered", func(t *testing.T) {
		s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
			if formTime(r, "start").Equal(days[2]) {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"parse error"}`)
				return
			}
			matrix(w, r)
		})
		c, _ := New(Source{URL: s.URL, Queries: Queries{Util: "u"}, ConcurrentDays: 3})
		var kept []time.Time
		err := c.FetchDays(t.Context(), days, now, func(d *Day) error { kept = append(kept, d.Start); return nil })
		var fe *FetchError
		if !errors.As(err, &fe) || !fe.Day.Equal(days[2]) {
			t.Fatalf("err %v, want day 2's FetchError", err)
		}
		if len(kept) != 2 || !kept[0].Equal(days[0]) || !kept[1].Equal(days[1]) {
			t.Errorf("kept %v, want days 0 and 1", kept)
		}
	})
	t.Run("keep fails", func(t *testing.T) {
		s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, _ int) { matrix(w, r) })
		c, _ := New(Source{URL: s.URL, Queries: Queries{Util: "u"}})
		stop, calls := errors.New("disk full"), 0
		err := c.FetchDays(t.Context(), days, now, func(*Day) error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("err %v after %d days kept, want disk full after 1", err, calls)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
			// Hang until the client gives up (the server notices a closed
			// connection only once the body is read).
			_ = r.ParseForm()
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		})
		c, _ := New(Source{URL: s.URL, Queries: Queries{Util: "u"}, Timeout: time.Hour})
		canceltest.Stops(t, 200*time.Millisecond, func(ctx context.Context) error {
			return c.FetchDays(ctx, days, now, func(*Day) error { return nil })
		})
	})
}
