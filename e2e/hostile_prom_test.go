package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestHostilePromAnswer: utilization.prometheus[].max_response_bytes reaches
// the client through `finops run`. A server whose every answer has one series
// longer than the cap (a 4 KB label, cap 1 KiB) cannot be split under it: the
// source is missing, naming the query and the cap, the week is unmonitored
// (never idle) and the run is partial (exit 3); nothing past the cap was read.
// The splitting itself is TestFetchDaySplitsLargeAnswers (ingest/prom).
func TestHostilePromAnswer(t *testing.T) {
	r := runWithPrometheus(t, hugeSeriesServer(t), "      max_response_bytes: 1024\n")
	checkMissing(t, r)
	for _, s := range r.DataQuality.Sources {
		if s.Name == "prometheus lab" {
			if !strings.Contains(s.Detail, "max_response_bytes (1024 bytes)") || !strings.Contains(s.Detail, "query \"") {
				t.Errorf("prometheus lab: %q, want the query and the cap named", s.Detail)
			}
			return
		}
	}
	t.Errorf("no prometheus source in data quality: %+v", r.DataQuality.Sources)
}

// hugeSeriesServer is a fake Prometheus (a real one cannot be made to hold
// a 4 KB label value per sample cheaply) whose every query_range answer is
// one series with a 4 KB label: over a 1 KiB max_response_bytes however the
// query is split. It returns the server's URL; the test closes it.
func hugeSeriesServer(t *testing.T) string {
	t.Helper()
	huge := strings.Repeat("x", 4096)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		start, _ := strconv.ParseFloat(r.Form.Get("start"), 64)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"UUID":"GPU-x","Hostname":"h","note":%q},"values":[[%d,"50"]]}]}}`,
			huge, int64(start))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
