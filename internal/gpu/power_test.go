package gpu

import "testing"

// TestPowerBound: 1.5× the rated power vendors publish (written here from
// their spec sheets, not read from Specs), by any spelling a log uses;
// 3 kW for a model the catalog does not know.
func TestPowerBound(t *testing.T) {
	for _, c := range []struct {
		name         string
		bound, rated float64
	}{
		{"A100-80GB", 600, 400}, // A100 SXM4 400 W × 1.5
		{"NVIDIA A100-SXM4-80GB", 600, 400},
		{"A100-PCIE-40GB", 600, 400}, // recorded as the A100-40GB, whose SXM4 variant is 400 W
		{"H100", 1050, 700},          // H100 SXM5 700 W
		{"H100 PCIe", 525, 350},      // 350 W
		{"H200", 1050, 700},
		{"L4", 108, 72},
		{"L40S", 525, 350},
		{"RTX 4090", 675, 450},
		{"NVIDIA GeForce RTX 4090", 675, 450},
		{"V100", 525, 350}, // SXM3 350 W
		{"T4", 105, 70},
		{"A10", 225, 150},
		{"Tesla X9000", 3000, 0}, // unknown
		{"", 3000, 0},
	} {
		if b, r := PowerBound(c.name); b != c.bound || r != c.rated {
			t.Errorf("PowerBound(%q) = %v, %v; want %v, %v", c.name, b, r, c.bound, c.rated)
		}
	}
	// Every known rating is a card's, not a server's: under the 3 kW bound
	// of an unknown model, so knowing a model never loosens it.
	for _, s := range Specs() {
		if b, _ := PowerBound(s.Model); b > UnknownPowerBound {
			t.Errorf("%s: bound %v W above the unknown model's %v W", s.Model, b, UnknownPowerBound)
		}
	}
}
