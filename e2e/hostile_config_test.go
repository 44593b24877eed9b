package e2e

// Hostile configuration (issue #14, items 8c and 13): nonsense values,
// names given twice, a second YAML document, numbers that are not finite,
// alias bombs and files too large to parse. Each is refused with exit 2
// naming the key path (or the file, its size and the limit), before the
// database or the out folder is touched.

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// refusedConfig runs `finops --config cfg --db db args...` and checks exit 2,
// a message holding every want, an unchanged database and no out folder.
func refusedConfig(t *testing.T, name, cfg string, args []string, want ...string) {
	t.Helper()
	db, before := hostileDB(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runFinops(t, append([]string{"--config", cfg, "--db", db}, append(args, "--out", out)...)...)
	msg := stdout + stderr
	if code != cli.ExitUsage {
		t.Errorf("%s: exit %d, want %d; output %.500s", name, code, cli.ExitUsage, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: message %.500q does not contain %q", name, msg, w)
		}
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("%s: database changed: %v → %v", name, before, after)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s: the out folder was created", name)
	}
}

func writeConfig(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostileConfigNonsense: the probe's config values, each refused by
// `finops report` (and `finops run`) naming its key path.
func TestHostileConfigNonsense(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"idle 150", "thresholds: {idle_utilization: 150}", "thresholds.idle_utilization: 150 is not more than 0 and below 100"},
		{"team twice", "teams: [{name: cv}, {name: nlp}, {name: ops}, {name: nlp}]", `teams[3].name: "nlp" is named twice (first at teams[1])`},
		{"negative budget", "teams: [{name: nlp, monthly_budget: -5000}]", "teams[0].monthly_budget: -5000 is not between 0 and"},
		{"lookback 0d", "thresholds: {lookback: 0d}", "thresholds.lookback: 0s is not between 1d and 366d"},
		{"spot_inflation 0", "thresholds: {spot_inflation: 0}", "thresholds.spot_inflation: 0 is not between 1 and 10"},
		{"second document", "currency: CNY\n---\ncurrency: USD\n", "line 2: a second YAML document"},
		{"fx 1e309", "currency: CNY\nfx: {USD: 1e309}", "fx.USD: 1e309 is beyond the largest number"},
		{"fx quoted 1e309", "currency: CNY\nfx: {USD: \"1e309\"}", "fx.USD: 1e309 is not between 0.000000001 and 1000000000"},
		{"budget .inf", "teams: [{name: nlp, monthly_budget: .inf}]", "teams[0].monthly_budget: .inf is not a finite number"},
		{"band .nan", "thresholds: {target_band: [.nan, 95]}", "thresholds.target_band[0]: .nan is not a finite number"},
	} {
		cfg := writeConfig(t, t.TempDir(), "finops.yaml", tc.yaml)
		refusedConfig(t, tc.name, cfg, []string{"report", "--week", "2026-W48"}, "finops.yaml", tc.want)
	}
	// The same through `finops run`, the scheduled job.
	cfg := writeConfig(t, t.TempDir(), "finops.yaml", "billing: [{path: x.csv}]\nthresholds: {lookback: 0d}")
	refusedConfig(t, "run", cfg, []string{"run", "--week", "2026-W48", "--no-upload", "--no-email"}, "thresholds.lookback: 0s")
}

// TestHostileConfigSize: a 50 MB config, a price catalog over the cap and a
// scenario file over it are each refused by name, size and limit without
// being parsed (a 50 MB config took 1.8 GB); an alias bomb in a config, a
// price catalog or a scenario file is refused at once.
func TestHostileConfigSize(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "finops.yaml")
	writeGenerated(t, big, func(w io.Writer) error { return repeatBytes(w, '#', 50<<20) })
	refusedConfig(t, "50 MiB config", big, []string{"report", "--week", "2026-W48"}, big+" is 50 MiB, over the 4 MiB limit")

	catDir := t.TempDir()
	writeGenerated(t, filepath.Join(catDir, "prices.yaml"), func(w io.Writer) error { return repeatBytes(w, '#', 5<<20) })
	cfg := writeConfig(t, catDir, "finops.yaml", "price_catalog: prices.yaml\n")
	refusedConfig(t, "5 MiB price catalog", cfg, []string{"report", "--week", "2026-W48"},
		"price_catalog: "+filepath.Join(catDir, "prices.yaml")+" is 5 MiB, over the 4 MiB limit")

	scen := filepath.Join(dir, "scenarios.yaml")
	writeGenerated(t, scen, func(w io.Writer) error { return repeatBytes(w, '#', 5<<20) })
	refusedConfig(t, "5 MiB scenario file", writeConfig(t, t.TempDir(), "finops.yaml", ""), []string{"plan", scen},
		scen+" is 5 MiB, over the 4 MiB limit")

	bomb := filepath.Join(repoRoot(t), "testdata", "yaml", "billion-laughs.yaml")
	refusedConfig(t, "alias bomb config", bomb, []string{"report", "--week", "2026-W48"}, "billion-laughs.yaml")
	refusedConfig(t, "alias bomb catalog", writeConfig(t, t.TempDir(), "finops.yaml", "price_catalog: "+bomb+"\n"),
		[]string{"report", "--week", "2026-W48"}, "price_catalog "+bomb)
	refusedConfig(t, "alias bomb scenarios", writeConfig(t, t.TempDir(), "finops.yaml", ""), []string{"plan", bomb}, "billion-laughs.yaml")
}
