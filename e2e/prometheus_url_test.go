package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrometheusURLUsesConfigCap: `finops ingest prometheus --url` reads a
// server the config lists with that server's settings, max_response_bytes
// among them (it used the defaults: a 256 MiB cap where the config said 1
// KiB), and its name; a URL the config does not list gets the smallest
// configured cap; --max-response-bytes replaces either. The server answers
// every query with one series carrying a 4 KB label (hugeSeriesServer), so
// the cap shows in the outcome.
func TestPrometheusURLUsesConfigCap(t *testing.T) {
	srvURL := hugeSeriesServer(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "finops.yaml")
	yaml := fmt.Sprintf(`database: %s
utilization:
  prometheus:
    - url: %s/
      name: lab
      retries: 0
      max_response_bytes: 1024
    - url: http://127.0.0.1:1
      name: other
      max_response_bytes: 4096
`, filepath.Join(dir, "f.db"), srvURL)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	unlisted := strings.Replace(srvURL, "127.0.0.1", "localhost", 1)
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"listed", []string{"--url", srvURL}, 1, []string{"prometheus lab", "max_response_bytes (1024 bytes)"}},
		{"unlisted", []string{"--url", unlisted}, 1, []string{"prometheus localhost", "max_response_bytes (1024 bytes)"}},
		{"flag", []string{"--url", srvURL, "--max-response-bytes", "65536"}, 0, []string{"prometheus lab 2026-11-28: 1 samples"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--config", cfg, "ingest", "prometheus", "--from", "2026-11-28", "--to", "2026-11-28"}, c.args...)
			code, out, errs := runFinops(t, args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			for _, w := range c.wants {
				if !strings.Contains(out+errs, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errs)
				}
			}
		})
	}
}
