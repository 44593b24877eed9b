package analysisconf

import (
	"os"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/config"
)

// The commented energy block of finops.example.yaml, uncommented, is a valid
// config that converts to its intensities; without the section, no intensity
// and PUE 1 (0 in the params, read as 1).
func TestEnergyConfig(t *testing.T) {
	b, err := os.ReadFile("../../finops.example.yaml")
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
		{"example block", y.String(), 1, new(436.0), 30, 1},
		{"no section", "", 0, nil, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := config.Parse("energy", []byte(c.yaml))
			if err != nil {
				t.Fatalf("%v\n%s", err, c.yaml)
			}
			p, err := Params(cfg)
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

// TestEnergyKeysDifferingInCase: regions and providers match bills without
// regard to case, so two keys that differ only in case are refused rather
// than one of them winning at random.
func TestEnergyKeysDifferingInCase(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"regions", "energy: {grid_intensity: {regions: {eu-north-1: 30, EU-North-1: 40}}}",
			`energy.grid_intensity.regions: "EU-North-1" and "eu-north-1" name the same region (case does not count): keep one`},
		{"providers", "energy: {grid_intensity: {providers: {AWS: 380, aws: 390}}}",
			`energy.grid_intensity.providers: "AWS" and "aws" name the same provider (case does not count): keep one`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := config.Parse("energy", []byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
	if _, err := config.Parse("energy", []byte("energy: {grid_intensity: {regions: {eu-north-1: 30, us-east-1: 380}}}")); err != nil {
		t.Fatalf("distinct regions refused: %v", err)
	}
}
