package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The shipped example must stay a valid config: users copy it.
func TestExampleConfigParses(t *testing.T) {
	b, err := os.ReadFile("../finops.example.yaml")
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
	p, err := c.AnalysisParams()
	if err != nil {
		t.Fatal(err)
	}
	if p.Currency != "CNY" || p.FX["USD"].String() != "7.1" || p.IdleMinSpan != 30*time.Minute || p.MinSavingsPct != 0.05 {
		t.Errorf("params = %+v", p)
	}
	if got := len(c.AnalysisPrices()); got != 3 {
		t.Errorf("prices = %d rows, want 3 (hourly, monthly, spot)", got)
	}
	ms, err := c.ColumnMappings()
	if err != nil || ms[0].Name != "mycloud" {
		t.Errorf("mappings = %+v, %v", ms, err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"idle_threshold: 5", "field idle_threshold not found"},
		{"timezone: Mars/Olympus", "timezone"},
		{"fx: {USD: abc}", "fx.USD"},
		{"thresholds: {lookback: soon}", "duration"},
		{"billing: [{path: x, mapping: nope}]", `mapping "nope"`},
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

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 720 * time.Hour, "2w": 336 * time.Hour, "36h": 36 * time.Hour, "30m": 30 * time.Minute} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestMappingValidated(t *testing.T) {
	// A mapping without the required cost column is refused before any file is read.
	c, err := Parse("f.yaml", []byte("mappings: {m: {columns: {resource_id: ID, start: S, end: E}}}"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ColumnMappings(); err == nil || !strings.Contains(err.Error(), "mappings.m") {
		t.Errorf("err = %v, want an error naming mappings.m", err)
	}
}

func TestPriceCatalogFile(t *testing.T) {
	// The shipped example catalog loads through price_catalog and every row is valid.
	dir := t.TempDir()
	b, err := os.ReadFile("../catalog/prices.example.yaml")
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
	c, err := Load(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	want := 1 + strings.Count(string(b), "{provider:")
	if len(c.Prices) != want {
		t.Errorf("prices = %d rows, want %d", len(c.Prices), want)
	}
	if err := os.WriteFile(cfg, []byte("price_catalog: missing.yaml\n"), 0o644); err == nil {
		if _, err := Load(cfg, true); err == nil || !strings.Contains(err.Error(), "price_catalog") {
			t.Errorf("missing catalog: err = %v", err)
		}
	}
}
