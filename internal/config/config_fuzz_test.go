package config

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParse: the config is YAML a user wrote. Any bytes give a config that
// validates and converts, or an error naming the file, never a panic.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("..", "..", "finops.example.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, s := range []string{
		"idle_threshold: 5", "timezone: Mars/Olympus", "fx: {USD: abc}", "thresholds: {lookback: 2w, target_band: [40, 80]}",
		"billing: [{path: x, mapping: nope}]", "teams: [{name: a, leads: [not-an-email]}]",
		"prices: [{provider: p, gpu_model: g, hourly: 1.5e0}]", "formats: [pdf]", "resources: [{id: a}, {id: a}]",
		"mappings: {hy: {encoding: GBK, timezone: Asia/Shanghai, columns: {resource_id: 实例, start: 开始, end: 结束, cost: 金额}}}",
		"a: &a [*a, *a]\nb: *a", "---\n---\n", "\xef\xbb\xbftimezone: UTC\r\n",
	} {
		f.Add([]byte(s))
	}
	name := filepath.Join(f.TempDir(), "fuzz.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		// price_catalog names a file to read, and a mutation may point it
		// anywhere (/dev/zero); its YAML is the same Price rows as prices:.
		if len(data) > 16<<10 || bytes.Contains(data, []byte("price_catalog")) {
			return
		}
		c, err := Parse(name, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "config: "+name+": ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed config does not validate again: %v", err)
		}
		if c.Lookback() <= 0 {
			t.Fatalf("lookback %v", c.Lookback())
		}
		if _, err := c.FXRates(); err != nil {
			t.Fatalf("a valid config's fx rates: %v", err)
		}
		for _, p := range c.Telemetry.Prometheus {
			p.PromLabels()
		}
	})
}

// FuzzParseDuration: lookbacks and intervals users write ("28d", "2w",
// "36h") are never negative, and N days are N × 24 h.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"28d", "2w", "36h", "30m", " 1h30m ", "-1d", "d", "0w", "1.5d", "+3d", "106751d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			return
		}
		if tr := strings.TrimSpace(s); len(tr) > 1 && (tr[len(tr)-1] == 'd' || tr[len(tr)-1] == 'w') {
			unit := 24 * time.Hour
			if tr[len(tr)-1] == 'w' {
				unit *= 7
			}
			k, err := strconv.Atoi(tr[:len(tr)-1])
			if err != nil {
				t.Fatalf("ParseDuration(%q) = %v from a count that is not a number", s, d)
			}
			// Counts past MaxInt64 ns (about 292 years) would wrap
			// around ("200000d" negative): they must be refused.
			if k > math.MaxInt64/int(unit) {
				t.Fatalf("ParseDuration(%q) = %v: want an error, the count overflows", s, d)
			}
			if d != time.Duration(k)*unit {
				t.Fatalf("ParseDuration(%q) = %v, want %d × %v", s, d, k, unit)
			}
		}
		if d < 0 {
			t.Fatalf("ParseDuration(%q) = %v", s, d)
		}
	})
}
