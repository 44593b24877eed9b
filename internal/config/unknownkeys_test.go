package config

import (
	"strings"
	"testing"
)

// TestUnknownKeys: a misspelt key anywhere in finops.yaml is named by its
// line and full path with the nearest valid key, never by a Go type name.
// The expected suggestions are the struct tags within two edits of the typo.
func TestUnknownKeys(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"top level", "timezon: UTC", "line 1: unknown key timezon; did you mean timezone?"},
		{"thresholds", "currency: USD\nthresholds:\n  idle_utilisation: 5", "line 3: unknown key thresholds.idle_utilisation; did you mean thresholds.idle_utilization?"},
		{"publish.s3", "publish:\n  s3:\n    bukket: x", "line 3: unknown key publish.s3.bukket; did you mean publish.s3.bucket?"},
		{"publish.smtp", "publish:\n  smtp:\n    hots: x", "line 3: unknown key publish.smtp.hots; did you mean publish.smtp.host?"},
		{"billing list", "billing:\n  - path: a.csv\n    fromat: focus", "line 3: unknown key billing[0].fromat; did you mean billing[0].format?"},
		{"mapping in a map", "mappings:\n  m:\n    colums: {a: b}", "line 3: unknown key mappings.m.colums; did you mean mappings.m.columns?"},
		{"prometheus", "utilization:\n  prometheus:\n    - url: http://p\n      stpe: 60s", "line 4: unknown key utilization.prometheus[0].stpe; did you mean utilization.prometheus[0].step?"},
		{"teams", "teams: [{name: a, lead: [x@y.z]}]", "line 1: unknown key teams[0].lead; did you mean teams[0].leads?"},
		{"purchase", "purchase: [{gpu_modle: A100}]", "line 1: unknown key purchase[0].gpu_modle; did you mean purchase[0].gpu_model?"},
		{"no near key", "colour: red", "line 1: unknown key colour; the keys at the top level are billing, chargeback, currency, database, energy, formats, fx, instance_types, mappings, max_bad_rows, out, price_catalog, prices, publish, purchase, report, resources, sources, tasks, teams, thresholds, timezone, utilization"},
		// An empty entry is refused, not read as no team (issue #26).
		{"empty team", "teams: [~]", "line 1: teams[0] is empty (~ or null): remove the entry or fill it in"},
		{"empty lead", "teams:\n  - name: a\n    leads:\n      - x@y.z\n      - null", "line 5: teams[0].leads[1] is empty (~ or null)"},
		{"empty source", "billing:\n  - path: a.csv\n  -", "line 3: billing[1] is empty"},
		{"two typos", "timezon: UTC\ncurency: USD", "2 unknown keys:\n  line 1: unknown key timezon; did you mean timezone?\n  line 2: unknown key curency; did you mean currency?"},
	} {
		_, err := Parse("f.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "config.") {
			t.Errorf("%s: err = %v names a Go type", tc.name, err)
		}
	}
}

// TestUnknownKeysCapped: a file of another program's settings lists the
// first maxKeyErrors keys and counts the rest.
func TestUnknownKeysCapped(t *testing.T) {
	var b strings.Builder
	for i := range 12 {
		b.WriteString("zz" + string(rune('a'+i)) + ": 1\n")
	}
	_, err := Parse("f.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "12 unknown keys:") || !strings.HasSuffix(err.Error(), "… and 2 more") ||
		!strings.Contains(err.Error(), "line 10: unknown key zzj") || strings.Contains(err.Error(), "zzk") {
		t.Errorf("err = %v", err)
	}
}
