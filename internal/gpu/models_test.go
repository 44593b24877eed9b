package gpu

import (
	"math"
	"testing"
)

// TestSpecsResolve: every name and alias of the table finds its own row, no
// key names two rows, and the recogniser ingest uses reads each name as the
// same model, so a card is the same everywhere.
func TestSpecsResolve(t *testing.T) {
	owner := map[string]string{}
	for _, s := range Specs() {
		for _, name := range append([]string{s.Model}, s.Aliases...) {
			got, ok := Lookup(name)
			if !ok || got.Model != s.Model {
				t.Errorf("Lookup(%q) = %q, %v; want %q", name, got.Model, ok, s.Model)
			}
			if prev, dup := owner[Key(name)]; dup && prev != s.Model {
				t.Errorf("%q names both %s and %s", name, prev, s.Model)
			}
			owner[Key(name)] = s.Model

			// Bills and price catalogs price the H100 PCIe with the H100
			// (models.go). The recogniser has never read "P4" (only Alibaba's
			// gn5i family names it); teaching it would change what ingest
			// records for "Tesla P4" text. Every other name reads the same to
			// both.
			want, known := s.Model, true
			switch s.Model {
			case gpuH100P:
				want = gpuH100
			case gpuP4:
				want, known = "", false
			}
			if m, ok := Canonical(name); ok != known || m != want {
				t.Errorf("Canonical(%q) = %q, %v; want %q", name, m, ok, want)
			}
		}
	}
	// Driver, bill and rental spellings (NVIDIA's and the platforms' own
	// names for these cards) find the model ingest records for them.
	for name, want := range map[string]string{"NVIDIA A100 80GB PCIe": gpuA100_80, "2 x A100-SXM4-80GB": gpuA100_80,
		"A100 80G": gpuA100_80, "NVIDIA H100 80GB HBM3": gpuH100, "NVIDIA H100 PCIe": gpuH100P, "RTX 4090D * 2": gpu4090D,
		"Tesla V100-SXM2-32GB": gpuV100, "NVIDIA L40": gpuL40, "AMD Instinct MI300X OAM": gpuMI300X} {
		if s, ok := Lookup(name); !ok || s.Model != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", name, s.Model, ok, want)
		}
	}
	for _, unknown := range []string{"", "GPU", "NVIDIA GeForce RTX 4080 SUPER", "Quadro RTX 6000", "CPU"} {
		if s, ok := Lookup(unknown); ok {
			t.Errorf("Lookup(%q) = %q, want unknown", unknown, s.Model)
		}
	}
}

// TestRecognisedModelsAreSpecs: every model the recogniser returns has a row.
// The tokens are resolveGPU's cases, listed by hand.
func TestRecognisedModelsAreSpecs(t *testing.T) {
	for _, text := range []string{"A100", "A100 80GB", "A800", "H100", "H200", "H800", "H20", "L40S", "L4", "L20",
		"A10G", "A10", "T4", "V100", "V100S", "M60", "4090", "4090D", "5090", "A40", "A30", "L40", "A6000", "B200",
		"MI300X", "P100", "3090", "RTX 6000 Ada", "Ascend 910B", "910B2"} {
		m, ok := Canonical(text)
		if !ok {
			t.Errorf("Canonical(%q) found nothing", text)
			continue
		}
		if s, ok := Lookup(m); !ok || s.Model != m {
			t.Errorf("%q reads as %q, which has no row of Specs", text, m)
		}
	}
}

// TestInstanceModelsAreSpecs: every built-in instance type, Alibaba family
// and bare-metal type carries a model with a row of Specs.
func TestInstanceModelsAreSpecs(t *testing.T) {
	check := func(what, model string, count int) {
		t.Helper()
		if s, ok := Lookup(model); !ok || s.Model != model {
			t.Errorf("%s: model %q has no row of Specs", what, model)
		}
		if count < 1 || count > MaxPerMachine {
			t.Errorf("%s: %d GPUs", what, count)
		}
	}
	c := NewCatalog()
	if len(c.instances) < 80 {
		t.Fatalf("only %d built-in instance types", len(c.instances))
	}
	for it, g := range c.instances {
		check(it, g.model, g.count)
	}
	for fam, m := range alibabaFamilies {
		check("ecs."+fam, m, 1)
	}
	for it, g := range alibabaBareMetal {
		check(it, g.model, g.count)
	}
}

// TestDatasheetFigures checks a few figures against the vendors' datasheets
// (dense = half the "with sparsity" figure they print), to 1 %: the table
// keeps metrics.md's rounded numbers.
//   - NVIDIA H100 Tensor Core GPU datasheet, SXM: BF16 1,979 TFLOPS sparse, 80 GB, 3.35 TB/s.
//   - NVIDIA H200 datasheet, SXM: BF16 1,979 TFLOPS sparse, 141 GB, 4.8 TB/s.
//   - NVIDIA A100 datasheet, 80GB SXM: BF16 312 TFLOPS dense (624 sparse), 2,039 GB/s.
//   - NVIDIA L40S datasheet: BF16 362.05 TFLOPS dense (733 sparse), 48 GB, 864 GB/s.
//   - NVIDIA L4 datasheet: BF16 242 TFLOPS sparse, 24 GB, 300 GB/s.
//   - NVIDIA H100 PCIe (H100 datasheet, PCIe column): BF16 1,513 TFLOPS sparse, 80 GB, 2 TB/s.
//   - AMD Instinct MI300X datasheet: BF16 1,307.4 TFLOPS dense, 192 GB HBM3, 5.3 TB/s.
func TestDatasheetFigures(t *testing.T) {
	for _, c := range []struct {
		model                     string
		tflops, memGB, bandwidthG float64
	}{
		{"H100", 1979.0 / 2, 80, 3350},
		{"H200", 1979.0 / 2, 141, 4800},
		{"A100-80GB", 312, 80, 2039},
		{"L40S", 362.05, 48, 864},
		{"L4", 242.0 / 2, 24, 300},
		{"H100 PCIe", 1513.0 / 2, 80, 2000},
		{"MI300X", 1307.4, 192, 5300},
	} {
		s, ok := Lookup(c.model)
		if !ok {
			t.Errorf("%s: not in Specs", c.model)
			continue
		}
		near := func(got, want float64) bool { return math.Abs(got-want) <= 0.01*want }
		if !near(s.TFLOPS, c.tflops) || s.MemoryGB != c.memGB || !near(s.BandwidthGBs, c.bandwidthG) {
			t.Errorf("%s: %v TFLOPS, %v GB, %v GB/s; datasheet %v, %v, %v", c.model, s.TFLOPS, s.MemoryGB,
				s.BandwidthGBs, c.tflops, c.memGB, c.bandwidthG)
		}
	}
}
