package config

import (
	"os"
	"strings"
	"testing"
)

// The commented energy block of finops.example.yaml, uncommented, is a valid
// config that converts to its intensities; without the section, no intensity
// and PUE 1 (0 in the params, read as 1).
func TestEnergyConfig(t *testing.T) {
	b, err := os.ReadFile("../finops.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "\n# energy:\n")
	if !ok {
		t.Fatal("finops.example.yaml has no commented energy block")
	}
	var y strings.Builder
	y.WriteString("energy:\n")
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		y.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ") + "\n")
	}
	cases := []struct {
		name, yaml  string
		pue         float64
		def         *float64
		eu, regions int
	}{
		{"example block", y.String(), 1, f64(436), 30, 1},
		{"no section", "", 0, nil, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse("energy", []byte(c.yaml))
			if err != nil {
				t.Fatalf("%v\n%s", err, c.yaml)
			}
			p, err := cfg.AnalysisParams()
			if err != nil {
				t.Fatal(err)
			}
			e := p.Energy
			if e.PUE != c.pue || len(e.Regions) != c.regions || int(e.Regions["eu-north-1"]) != c.eu {
				t.Errorf("energy params = %+v", e)
			}
			if (e.Default == nil) != (c.def == nil) || (e.Default != nil && *e.Default != *c.def) {
				t.Errorf("default = %v, want %v", e.Default, c.def)
			}
		})
	}
}

func f64(v float64) *float64 { return &v }
