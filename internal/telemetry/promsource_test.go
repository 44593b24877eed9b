package telemetry

import (
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest/prom"
)

// TestPromSource: the exporter's default queries unless the block replaces
// them (query for utilization, queries for any of the four; queries.util
// wins over query), three retries unless retries says (0 included), the
// label lists split at commas, and the durations as given.
func TestPromSource(t *testing.T) {
	dcgm, err := prom.DefaultQueries("dcgm")
	if err != nil {
		t.Fatal(err)
	}
	smi, err := prom.DefaultQueries("nvidia_gpu_exporter")
	if err != nil {
		t.Fatal(err)
	}
	zero := 0
	for _, tc := range []struct {
		name        string
		p           config.Prometheus
		wantQ       prom.Queries
		wantRetries int
		wantTask    []string
	}{
		{name: "defaults", p: config.Prometheus{URL: "http://p:9090"}, wantQ: dcgm, wantRetries: 3},
		{name: "other exporter", p: config.Prometheus{URL: "http://p:9090", Exporter: "nvidia_gpu_exporter"}, wantQ: smi, wantRetries: 3},
		{name: "query replaces util", p: config.Prometheus{URL: "http://p:9090", Query: "u"},
			wantQ: prom.Queries{Util: "u", MemUsed: dcgm.MemUsed, MemTotal: dcgm.MemTotal, Power: dcgm.Power}, wantRetries: 3},
		{name: "queries replace each", p: config.Prometheus{URL: "http://p:9090", Query: "u", Queries: config.PromQueries{Util: "u2", Power: "w"}, Retries: &zero},
			wantQ: prom.Queries{Util: "u2", MemUsed: dcgm.MemUsed, MemTotal: dcgm.MemTotal, Power: "w"}, wantRetries: 0},
		{name: "labels", p: config.Prometheus{URL: "http://p:9090", Labels: map[string]string{"task": "pod, exported_pod"}},
			wantQ: dcgm, wantRetries: 3, wantTask: []string{"pod", "exported_pod"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.Step.Duration, tc.p.Timeout.Duration = 30*time.Second, time.Minute
			src, err := PromSource(&config.Config{}, tc.p, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			if src.Queries != tc.wantQ {
				t.Errorf("queries %+v, want %+v", src.Queries, tc.wantQ)
			}
			if src.Retries != tc.wantRetries || src.Step != 30*time.Second || src.Timeout != time.Minute || src.URL != tc.p.URL {
				t.Errorf("source %+v", src)
			}
			if !slices.Equal(src.TaskLabels.Task, tc.wantTask) || src.Catalog == nil || src.Getenv == nil {
				t.Errorf("labels %+v, catalog %v", src.TaskLabels, src.Catalog != nil)
			}
		})
	}
	if _, err := PromSource(&config.Config{}, config.Prometheus{Exporter: "nope"}, nil); err == nil {
		t.Error("an unknown exporter gave a source")
	}
}
