package telemetry

import (
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
)

// TestURLServer: --url of a configured server keeps its settings and the
// flags given replace them; an unknown URL gets the configured servers'
// smallest caps.
func TestURLServer(t *testing.T) {
	two, four := 2, 4
	conf := []config.Prometheus{
		{URL: "http://lab:9090", Name: "lab", Exporter: "dcgm", MaxResponseBytes: 1024, ConcurrentDays: &four,
			Labels: map[string]string{"team": "namespace", "task": "pod"}},
		{URL: "http://other:9090", MaxResponseBytes: 4096, ConcurrentDays: &two},
	}
	given := func(flags ...string) func(string) bool {
		return func(f string) bool { return slices.Contains(flags, f) }
	}
	for _, tc := range []struct {
		name  string
		o     Overrides
		check func(t *testing.T, p config.Prometheus)
	}{
		{"configured, no flags", Overrides{Server: config.Prometheus{URL: "http://lab:9090/"}, Retries: 3, Set: given()},
			func(t *testing.T, p config.Prometheus) {
				// Its own name, cap and days; retries stay the config's (nil).
				if p.Name != "lab" || p.MaxResponseBytes != 1024 || *p.ConcurrentDays != 4 || p.Retries != nil || p.Exporter != "dcgm" {
					t.Errorf("%+v", p)
				}
			}},
		{"configured, flags replace", Overrides{Server: config.Prometheus{URL: "http://lab:9090", Name: "x", Exporter: "nvidia_gpu_exporter",
			MaxResponseBytes: 99}, Step: "30s", Retries: 1, ConcurrentDays: 1, TeamLabel: "", TaskLabel: "job",
			Set: given("name", "exporter", "max-response-bytes", "step", "retries", "concurrent-days", "team-label", "task-label")},
			func(t *testing.T, p config.Prometheus) {
				// An empty --team-label deletes the role.
				if p.Name != "x" || p.Exporter != "nvidia_gpu_exporter" || p.MaxResponseBytes != 99 || p.Step.Duration != 30*time.Second ||
					*p.Retries != 1 || *p.ConcurrentDays != 1 || p.Labels["team"] != "" || p.Labels["task"] != "job" {
					t.Errorf("%+v", p)
				}
			}},
		{"unknown URL: the smallest caps", Overrides{Server: config.Prometheus{URL: "http://new:9090"}, Retries: 3, Set: given()},
			func(t *testing.T, p config.Prometheus) {
				// min(1024, 4096) and min(4, 2); the flag's default of 3 retries.
				if p.Name != "" || p.MaxResponseBytes != 1024 || *p.ConcurrentDays != 2 || *p.Retries != 3 {
					t.Errorf("%+v", p)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := URLServer(conf, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p)
		})
	}
	if conf[0].Labels["team"] != "namespace" {
		t.Error("the config's labels were changed")
	}
	if _, err := URLServer(conf, Overrides{Server: config.Prometheus{URL: "http://lab:9090"}, Step: "soon", Set: given("step")}); err == nil {
		t.Error("--step soon: no error")
	}
}
