package prom

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
)

// TestFetchDaySplitRealPrometheus: the split queries (shorter ranges, then
// per host with `and on(...)`) are PromQL a real Prometheus must accept and
// answer with exactly the samples of the whole query. Four hosts of one GPU
// each log a day of dcgm utilization at one sample a minute (host h at
// (h×10 + minute) mod 100 %, so every sample is distinct). With a cap of
// 700 bytes one step of the whole fleet (four series, measured: over 700 and
// under 1,024 bytes) is over it and one host's is not: the day is fetched per
// host (checked: queries name the hosts), in short ranges, and must give the
// same 4 × 1,440 samples as the uncapped fetch, each once.
func TestFetchDaySplitRealPrometheus(t *testing.T) {
	day0 := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	var om promtest.OpenMetrics
	om.Family(dcgm.GPUUtil)
	for h := range 4 {
		host := fmt.Sprintf("gpu-node-%02d.cluster.example.internal", h)
		labels := []string{"gpu", "0", "UUID", fmt.Sprintf("GPU-%08d-aaaa-bbbb-cccc-dddddddddddd", h),
			"modelName", "NVIDIA A100-SXM4-80GB", "Hostname", host}
		for m := range 1440 {
			om.Sample(labels, day0.Add(time.Duration(m)*time.Minute), fmt.Sprint((h*10+m)%100))
		}
	}
	srv := promtest.Start(t, om.Bytes())
	q, _ := DefaultQueries(ExporterDCGM)
	var perHost atomic.Int64 // queries naming one host
	fetch := func(cap int64) map[string]float64 {
		t.Helper()
		c, err := New(Source{Name: "t", URL: srv.URL, Queries: q, MaxResponseBytes: cap,
			Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				// The query is in the URL (GET) or the form body (POST);
				// a host name survives URL encoding as it is.
				q := r.URL.RawQuery
				if r.Body != nil {
					b, err := io.ReadAll(r.Body)
					if err != nil {
						return nil, err
					}
					r.Body, q = io.NopCloser(bytes.NewReader(b)), q+string(b)
				}
				if strings.Contains(q, "gpu-node-") {
					perHost.Add(1)
				}
				return http.DefaultTransport.RoundTrip(r)
			})})
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.FetchDay(t.Context(), day0, day0.Add(48*time.Hour))
		if err != nil {
			t.Fatalf("cap %d: %v", cap, err)
		}
		sink := &recSink{}
		if _, err := d.Replay(t.Context(), sink); err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, s := range sink.samples {
			k := s.UUID + " " + s.Time.Format(time.RFC3339)
			if _, dup := out[k]; dup {
				t.Errorf("cap %d: %s twice", cap, k)
			}
			if s.Util != nil {
				out[k] = *s.Util
			}
		}
		return out
	}
	whole, split := fetch(0), fetch(700)
	if len(whole) != 4*1440 {
		t.Fatalf("uncapped: %d samples, want 5,760", len(whole))
	}
	for k, v := range whole {
		if sv, ok := split[k]; !ok || sv != v {
			t.Errorf("%s: split fetch %v (present %v), whole %v", k, sv, ok, v)
		}
	}
	if len(split) != len(whole) {
		t.Errorf("split fetch: %d samples, want %d", len(split), len(whole))
	}
	if perHost.Load() == 0 {
		t.Error("the capped fetch never asked per host: the cap did not force the per-host split")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
