package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/capped"
)

// The shipped example must stay a valid config: users copy it.
func TestExampleConfigParses(t *testing.T) {
	b, err := os.ReadFile("../../finops.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("finops.example.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Lookback() != 28*24*time.Hour {
		t.Errorf("lookback = %v", c.Lookback())
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"idle_threshold: 5", "line 1: unknown key idle_threshold; the keys at the top level are billing, chargeback, currency,"},
		{"timezone: Mars/Olympus", "timezone"},
		{"fx: {USD: abc}", "fx.USD"},
		{"thresholds: {lookback: soon}", "duration"},
		{"teams: [{name: a, leads: [not-an-email]}]", "not an email"},
		{"prices: [{provider: p, gpu_model: g}]", "at least one of hourly"},
		{"formats: [pdf]", `"pdf"`},
		{"resources: [{id: a}, {id: a}]", "appears twice"},
	} {
		_, err := Parse("f.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.yaml, err, tc.want)
		}
	}
	if c, err := Parse("empty.yaml", nil); err != nil || c == nil {
		t.Errorf("empty config: %v", err)
	}
}

func TestHotDays(t *testing.T) {
	for _, tt := range []struct {
		yaml string
		ok   bool
	}{{"utilization: {hot_days: 0}", true}, {"utilization: {hot_days: 7}", true}, {"utilization: {hot_days: -1}", false}, {"utilization: {hot_days: 401}", false}} {
		_, err := Parse("f.yaml", []byte(tt.yaml))
		if (err == nil) != tt.ok || err != nil && !strings.Contains(err.Error(), "utilization.hot_days") {
			t.Errorf("%s: err = %v, want ok=%v", tt.yaml, err, tt.ok)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 720 * time.Hour, "2w": 336 * time.Hour, "36h": 36 * time.Hour, "30m": 30 * time.Minute} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", in, got, err, want)
		}
	}
	// 106,751 days fit in an int64 of nanoseconds; 106,752 do not (and
	// 200000d used to wrap around to a negative duration).
	if d, err := ParseDuration("106751d"); err != nil || d != 106751*24*time.Hour {
		t.Errorf("106751d = %v, %v", d, err)
	}
	for _, in := range []string{"106752d", "200000d", "40000w"} {
		if d, err := ParseDuration(in); err == nil {
			t.Errorf("%s = %v, want an error", in, d)
		}
	}
}

func TestPriceCatalogFile(t *testing.T) {
	// The shipped example catalog loads through price_catalog and every row is valid.
	dir := t.TempDir()
	b, err := os.ReadFile("../../catalog/prices.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prices.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "finops.yaml")
	if err := os.WriteFile(cfg, []byte("price_catalog: prices.yaml\nprices: [{provider: X, gpu_model: Y, hourly: 1}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(cfg, true, capped.ReadRegular)
	if err != nil {
		t.Fatal(err)
	}
	want := 1 + strings.Count(string(b), "{provider:")
	if len(c.Prices) != want {
		t.Errorf("prices = %d rows, want %d", len(c.Prices), want)
	}
	if err := os.WriteFile(cfg, []byte("price_catalog: missing.yaml\n"), 0o644); err == nil {
		if _, err := Load(cfg, true, capped.ReadRegular); err == nil || !strings.Contains(err.Error(), "price_catalog") {
			t.Errorf("missing catalog: err = %v", err)
		}
	}
}

func TestTelemetryConfig(t *testing.T) {
	b, err := os.ReadFile("../../finops.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("finops.example.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	tl := c.Telemetry
	if len(tl.Prometheus) != 1 || len(tl.DCGMScrapes) != 1 || len(tl.NVMLSpool) != 1 {
		t.Fatalf("telemetry %+v", tl)
	}
	p := tl.Prometheus[0]
	if p.Step.Duration != time.Minute || p.Timeout.Duration != 2*time.Minute || *p.Retries != 3 || p.BearerTokenEnv != "FINOPS_PROM_TOKEN" {
		t.Errorf("prometheus %+v", p)
	}
	if l := p.PromLabels(); strings.Join(l["task"], "|") != "pod|exported_pod" || strings.Join(l["kind"], "|") != "container|exported_container" {
		t.Errorf("labels %v", l)
	}
	if tl.DCGMScrapes[0].Interval.Duration != 30*time.Second {
		t.Errorf("scrapes %+v", tl.DCGMScrapes[0])
	}
	for _, bad := range []struct{ yaml, want string }{
		{"utilization:\n  prometheus:\n    - url: http://p\n      exporter: node\n", "not dcgm or nvidia_gpu_exporter"},
		{"utilization:\n  prometheus:\n    - url: http://p\n      step: 1500ms\n", "whole seconds"},
		{"utilization:\n  prometheus:\n    - url: http://p\n      max_response_bytes: -1\n", "max_response_bytes: want 0 or more bytes (0 for the default, 268435456)"},
		{"utilization:\n  prometheus:\n    - url: http://p\n      labels: {pod: pod}\n", `"pod" is not task, team or kind`},
		{"utilization:\n  prometheus:\n    - url: http://p\n      basic_auth_password_env: X\n", "needs basic_auth_user"},
		{"utilization:\n  prometheus:\n    - url: http://p\n      password: x\n", "line 4: unknown key utilization.prometheus[0].password; the keys under utilization.prometheus[0] are"},
		{"utilization:\n  nvml_spool:\n    - {}\n", "nvml_spool[0]: path is required"},
	} {
		if _, err := Parse("x.yaml", []byte(bad.yaml)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.yaml, err, bad.want)
		}
	}
}
