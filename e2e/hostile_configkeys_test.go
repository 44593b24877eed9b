package e2e

// A misspelt config key (issue #16, item 11) is refused with exit 2 naming
// the file, the key's line and path and the nearest valid key, in every
// nested section, and never a Go type name.

import (
	"strings"
	"testing"
)

func TestHostileConfigTypo(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"top level", "timezon: Asia/Shanghai", "finops.yaml: line 1: unknown key timezon; did you mean timezone?"},
		{"thresholds", "thresholds:\n  lookbak: 28d", "finops.yaml: line 2: unknown key thresholds.lookbak; did you mean thresholds.lookback?"},
		{"publish.s3", "publish:\n  s3:\n    bucket: b\n    regoin: us-east-1", "finops.yaml: line 4: unknown key publish.s3.regoin; did you mean publish.s3.region?"},
	} {
		cfg := writeConfig(t, t.TempDir(), "finops.yaml", tc.yaml)
		refusedConfig(t, tc.name, cfg, []string{"report", "--week", "2026-W48"}, tc.want)
		_, stdout, stderr := runFinops(t, "--config", cfg, "report", "--week", "2026-W48")
		if msg := stdout + stderr; strings.Contains(msg, "not found in type") || strings.Contains(msg, "config.") {
			t.Errorf("%s: message names a Go type: %s", tc.name, msg)
		}
	}
}
