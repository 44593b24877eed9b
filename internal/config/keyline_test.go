package config

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestHandedInChecksGetLines: invariant — every refusal that starts with a
// key path the file holds is prefixed with the line of that key, whether a
// refusal of config's own (keyErr) or a plain error of a check another package
// handed in (source's billing[i].format, telemetry's). Files are generated:
// billing entries behind random comments and blank lines; the expected line
// is the line the generator wrote the entry's format: on (or, when it wrote
// none, the entry's "- " item), not one found through YAML.
func TestHandedInChecksGetLines(t *testing.T) {
	rng := rand.New(rand.NewSource(36))
	for n := 0; n < 200; n++ {
		var b strings.Builder
		line := 0
		emit := func(s string) { b.WriteString(s + "\n"); line++ }
		emit("currency: USD")
		for range rng.Intn(3) {
			emit("# a comment")
		}
		emit("billing:")
		entries := 1 + rng.Intn(5)
		itemLine := make([]int, entries)
		for i := range entries {
			for range rng.Intn(3) {
				if rng.Intn(2) == 0 {
					emit("")
				} else {
					emit("  # note")
				}
			}
			emit(fmt.Sprintf("  - path: bills/%d.csv", i))
			itemLine[i] = line
			if rng.Intn(2) == 0 {
				emit("    format: focus")
				itemLine[i] = line // the deepest key of the path the file holds
			}
		}
		bad := rng.Intn(entries)
		check := func(*Config) []error {
			return []error{fmt.Errorf("billing[%d].format: %q is not one of focus, cur", bad, "xyz")}
		}
		_, err := Parse("finops.yaml", []byte(b.String()), check)
		want := fmt.Sprintf("line %d: billing[%d].format:", itemLine[bad], bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("file:\n%s\nerror %v, want it to contain %q", b.String(), err, want)
		}
	}
}

// TestLeadingKey: only a key path opens a refusal's line lookup; prose
// that happens to start the message does not.
func TestLeadingKey(t *testing.T) {
	for msg, want := range map[string]string{
		"billing[2].format: \"x\" is not one of …":    "billing[2].format",
		"purchase[0] (A100): gpu_model appears twice": "purchase[0]",
		"telemetry.nvidia_smi[1].path: missing":       "telemetry.nvidia_smi[1].path",
		"no billing sources: add one":                 "no",
		"Billing[1]: x":                               "",
		"billing[x]: x":                               "",
		"billing[1: x":                                "",
		": x":                                         "",
		"line 4: unknown key x":                       "line",
	} {
		if got := leadingKey(msg); got != want {
			t.Errorf("leadingKey(%q) = %q, want %q", msg, got, want)
		}
	}
}
