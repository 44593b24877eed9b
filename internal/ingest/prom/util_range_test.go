package prom

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// TestFetchDayUtilOutOfRange: a utilization outside 0–100 % is no sample,
// dropped and counted (finops.ValidUtil), never clamped to 0 or 100 — the
// rule dcgm scrapes and nvidia-smi logs follow too. A NaN is Prometheus
// saying the exporter had no value: missing (no data), not a bad reading.
func TestFetchDayUtilOutOfRange(t *testing.T) {
	// Values at steps 0..5 of one GPU; by hand: −7, 150 and 100.5 are
	// dropped (3), NaN is no data (neither), 0 and 100 are kept as they are.
	values := []string{"-7", "150", "NaN", "0", "100", "100.5"}
	s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		start := formTime(r, "start")
		var pts [][]any
		for i, v := range values {
			pts = append(pts, []any{float64(start.Unix() + int64(i)*60), v})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix",
			"result": []any{map[string]any{"metric": map[string]string{"UUID": "GPU-x", "Hostname": "h", "gpu": "0"}, "values": pts}}}})
	})
	c, err := New(Source{Name: "p", URL: s.URL, Queries: Queries{Util: "DCGM_FI_DEV_GPU_UTIL"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.FetchDay(t.Context(), day0, day0.Add(72*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if d.Samples != 2 || d.Dropped != 3 {
		t.Errorf("%d samples, %d dropped; want 2 and 3", d.Samples, d.Dropped)
	}
	sink := &recSink{}
	sum, err := d.Replay(t.Context(), sink)
	if err != nil {
		t.Fatal(err)
	}
	if sum.SamplesDropped != 3 || len(sink.samples) != 2 || *sink.samples[0].Util != 0 || *sink.samples[1].Util != 100 {
		t.Errorf("replay: %d dropped, samples %v", sum.SamplesDropped, sink.samples)
	}
}
