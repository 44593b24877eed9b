package watch

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/analysis"
)

// TestExpandRefusesUnsafeValues: a value from a bill that a shell would
// split or interpret, or a program read as an option, is never
// substituted; the error names the placeholder and why. Fields the command
// does not use are not checked.
func TestExpandRefusesUnsafeValues(t *testing.T) {
	argv := []string{"/usr/local/bin/stop-gpu", "--", "{resource_id}"}
	for id, want := range map[string]string{
		"gpu-x; touch PWNED":     `shell character ';'`,
		"--help":                 `starts with "-"`,
		"-rf":                    `starts with "-"`,
		"gpu x":                  "whitespace",
		"gpu-x\n":                "control",
		"gpu\u202ex":             "control or invisible",
		"$(id)":                  `shell character '$'`,
		"a`id`":                  "shell character '`'",
		"i-1|sh":                 "shell character '|'",
		"i-1&&x":                 "shell character '&'",
		"*":                      "shell character '*'",
		"it's":                   `shell character '\''`,
		strings.Repeat("a", 513): "over 512",
		"gpu\xff":                "UTF-8",
		"~root":                  "shell character '~'",
		"{short_id}":             "shell character '{'",
		"C:\\x":                  `shell character '\\'`,
		"a>b":                    "shell character '>'",
	} {
		_, err := Expand(argv, &analysis.ResourceNow{ID: id})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "{resource_id} ") {
			t.Errorf("%q: err = %v, want {resource_id} … %s", id, err, want)
		}
	}
	for _, id := range []string{"gpu-a", "i-0123456789abcdef0", "arn:aws:ec2:us-east-1:123456789012:instance/i-1",
		"/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/vm-1", "训练机", "a-", "x=1,y@z", strings.Repeat("a", 512)} {
		got, err := Expand(argv, &analysis.ResourceNow{ID: id, Name: "a name with spaces"})
		if err != nil || got[2] != id {
			t.Errorf("%q: %q, %v", id, got, err)
		}
	}
	if _, err := Expand([]string{"stop", "{resource_name}"}, &analysis.ResourceNow{ID: "gpu-a", Name: "my box"}); err == nil ||
		!strings.Contains(err.Error(), "{resource_name}") {
		t.Errorf("a used name with spaces: %v", err)
	}
}
