package gpu

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// TestParseSliceNamed: the names issue #34 and NVIDIA's docs give, with
// fractions worked by hand (profile GB / parent GB; MIG compute g/7).
func TestParseSliceNamed(t *testing.T) {
	tests := []struct {
		name                 string
		parent, kind, prof   string
		memFrac, computeFrac float64
	}{
		// A100 PCIe 40GB, 10 GB profile: 10/40.
		{"GRID A100-10C", "A100-40GB", SliceVGPU, "A100-10C", 0.25, 0},
		{"A100-4C", "A100-40GB", SliceVGPU, "A100-4C", 0.1, 0},
		{"NVIDIA A100-40C", "A100-40GB", SliceVGPU, "A100-40C", 1, 0},
		// A100 PCIe 80GB boards are "A100D": 20/80.
		{"NVIDIA A100D-20C", "A100-80GB", SliceVGPU, "A100D-20C", 0.25, 0},
		// T4 16 GB: 4/16.
		{"GRID T4-4Q", "T4", SliceVGPU, "T4-4Q", 0.25, 0},
		// MIG-backed vGPU: 3 of 7 compute slices, 20 of 40 GB.
		{"NVIDIA A100-3-20C", "A100-40GB", SliceVGPU, "A100-3-20C", 0.5, 3.0 / 7},
		// A16 is not in the catalog: still a slice, fraction unknown.
		{"A16-2B", "", SliceVGPU, "A16-2B", 0, 0},
		// MIG on an A100-40GB: 1g.5gb = 5/40, 1/7.
		{"NVIDIA A100-SXM4-40GB MIG 1g.5gb", "A100-40GB", SliceMIG, "1g.5gb", 0.125, 1.0 / 7},
		// dcgm's modelName + GPU_I_PROFILE on an A100-80GB: 10/80, 1/7.
		{"NVIDIA A100-SXM4-80GB 1g.10gb", "A100-80GB", SliceMIG, "1g.10gb", 0.125, 1.0 / 7},
		{"NVIDIA H100 80GB HBM3 MIG 3g.40gb", "H100", SliceMIG, "3g.40gb", 0.5, 3.0 / 7},
		{"A100-SXM4-80GB 7g.80gb", "A100-80GB", SliceMIG, "7g.80gb", 1, 1},
		{"NVIDIA A100 80GB PCIe MIG 2g.20gb", "A100-80GB", SliceMIG, "2g.20gb", 0.25, 2.0 / 7},
		// A30: four compute slices, 24 GB.
		{"NVIDIA A30 MIG 2g.12gb", "A30", SliceMIG, "2g.12gb", 0.5, 0.5},
		// A profile alone: a slice of a parent the name does not give.
		{"MIG 1g.10gb", "", SliceMIG, "1g.10gb", 0, 0},
		{"3g.40gb", "", SliceMIG, "3g.40gb", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := ParseSlice(tt.name)
			if !ok {
				t.Fatalf("ParseSlice(%q): not a slice", tt.name)
			}
			if s.Parent != tt.parent || s.Kind != tt.kind || s.Profile != tt.prof {
				t.Errorf("ParseSlice(%q) = %s %s %s, want %s %s %s", tt.name, s.Parent, s.Kind, s.Profile, tt.parent, tt.kind, tt.prof)
			}
			if math.Abs(s.MemoryFraction-tt.memFrac) > 1e-12 || math.Abs(s.ComputeFraction-tt.computeFrac) > 1e-12 {
				t.Errorf("ParseSlice(%q) fractions = %v, %v; want %v, %v", tt.name, s.MemoryFraction, s.ComputeFraction, tt.memFrac, tt.computeFrac)
			}
		})
	}
}

// TestParseSliceWholeCards: a card's own name is never a slice.
func TestParseSliceWholeCards(t *testing.T) {
	for _, name := range []string{"A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "Tesla T4",
		"NVIDIA H100 80GB HBM3", "H100-PCIE-80GB", "RTX 4090", "NVIDIA GeForce RTX 4090", "A10G", "L40S", "H20",
		"NVIDIA A30", "", "MIG", "1g", "gpu-a/0", "g5.xlarge", "a2-highgpu-1g"} {
		if s, ok := ParseSlice(name); ok {
			t.Errorf("ParseSlice(%q) = %+v, want a whole card (not a slice)", name, s)
		}
	}
}

// TestParseSliceGenerated: random parents from the catalog × profiles built
// for them parse to profileGB/parentGB, computed here from Specs' memory;
// whole-card names and random text never parse as slices.
func TestParseSliceGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(34))
	// Boards NVIDIA's vGPU tables use for catalog models, with the model.
	vgpuBoards := []struct{ board, model string }{
		{"A100", "A100-40GB"}, {"A100X", "A100-40GB"}, {"A100D", "A100-80GB"}, {"A100DX", "A100-80GB"},
		{"H100", "H100"}, {"H100XM", "H100"}, {"T4", "T4"}, {"L4", "L4"}, {"L40S", "L40S"}, {"A10", "A10"},
		{"A40", "A40"}, {"L40", "L40"}, {"A30", "A30"}, {"M60", "M60"}, {"L20", "L20"}, {"H20", "H20"},
	}
	// Driver names of MIG-capable cards with the model and its memory and
	// compute slices (MIG user guide), independent of migSlices.
	migCards := []struct {
		driver, model string
		gb, slices    int
	}{
		{"NVIDIA A100-SXM4-40GB", "A100-40GB", 40, 7}, {"NVIDIA A100-PCIE-40GB", "A100-40GB", 40, 7},
		{"NVIDIA A100-SXM4-80GB", "A100-80GB", 80, 7}, {"NVIDIA A100 80GB PCIe", "A100-80GB", 80, 7},
		{"NVIDIA H100 80GB HBM3", "H100", 80, 7}, {"NVIDIA H200", "H200", 141, 7}, {"NVIDIA A30", "A30", 24, 4},
	}
	memOf := map[string]float64{}
	for _, s := range Specs() {
		memOf[s.Model] = s.MemoryGB
	}
	prefixes := []string{"", "GRID ", "NVIDIA "}
	letters := "ABCQ"
	for i := 0; i < 3000; i++ {
		b := vgpuBoards[rng.Intn(len(vgpuBoards))]
		parentGB := memOf[b.model]
		gb := 1 + rng.Intn(int(parentGB))
		name := fmt.Sprintf("%s%s-%d%c", prefixes[rng.Intn(3)], b.board, gb, letters[rng.Intn(4)])
		s, ok := ParseSlice(name)
		if !ok || s.Kind != SliceVGPU || s.Parent != b.model {
			t.Fatalf("ParseSlice(%q) = %+v, %v; want a vGPU of %s", name, s, ok, b.model)
		}
		if want := float64(gb) / parentGB; math.Abs(s.MemoryFraction-want) > 1e-12 {
			t.Fatalf("ParseSlice(%q) memory fraction %v, want %d/%v", name, s.MemoryFraction, gb, parentGB)
		}

		c := migCards[rng.Intn(len(migCards))]
		g := 1 + rng.Intn(c.slices)
		mgb := 1 + rng.Intn(c.gb)
		sep := []string{" MIG ", " "}[rng.Intn(2)]
		name = fmt.Sprintf("%s%s%dg.%dgb", c.driver, sep, g, mgb)
		s, ok = ParseSlice(name)
		if !ok || s.Kind != SliceMIG || s.Parent != c.model {
			t.Fatalf("ParseSlice(%q) = %+v, %v; want a MIG instance of %s", name, s, ok, c.model)
		}
		if want := float64(mgb) / float64(c.gb); math.Abs(s.MemoryFraction-want) > 1e-12 {
			t.Fatalf("ParseSlice(%q) memory fraction %v, want %d/%d", name, s.MemoryFraction, mgb, c.gb)
		}
		if want := float64(g) / float64(c.slices); math.Abs(s.ComputeFraction-want) > 1e-12 {
			t.Fatalf("ParseSlice(%q) compute fraction %v, want %d/%d", name, s.ComputeFraction, g, c.slices)
		}
		if s.Share() <= 0 || s.Share() > 1 {
			t.Fatalf("ParseSlice(%q) share %v: a slice counts as more than 0 and at most one card", name, s.Share())
		}

		// The whole card's driver name and every spelling in Specs: a card.
		if s, ok := ParseSlice(c.driver); ok {
			t.Fatalf("ParseSlice(%q) = %+v: a whole card read as a slice", c.driver, s)
		}
		spec := Specs()[rng.Intn(len(Specs()))]
		for _, n := range append([]string{spec.Model}, spec.Aliases...) {
			if s, ok := ParseSlice(n); ok {
				t.Fatalf("ParseSlice(%q) = %+v: a catalog name read as a slice", n, s)
			}
		}

		// Random text: letters, digits, spaces, dots and dashes that match
		// neither shape (checked here by an independent test of the shape).
		r := randomText(rng)
		if s, ok := ParseSlice(r); ok && !looksLikeProfile(r) {
			t.Fatalf("ParseSlice(%q) = %+v: random text read as a slice", r, s)
		}
	}
}

func randomText(rng *rand.Rand) string {
	const alphabet = "AaBCcDGgHMQTXbdm0123456789 .-/"
	n := 1 + rng.Intn(16)
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[rng.Intn(len(alphabet))])
	}
	return b.String()
}

// looksLikeProfile is the shape of a profile, read by hand rather than by
// the regular expressions: a last word "<g>g.<n>gb", or one word
// "<letters><digits><letters>-[<g>-]<n><A|B|C|Q>" (after GRID/NVIDIA).
func looksLikeProfile(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return false
	}
	last := strings.ToLower(f[len(f)-1])
	if i := strings.Index(last, "g."); i > 0 && strings.HasSuffix(last, "gb") {
		return true
	}
	if strings.Count(f[len(f)-1], "-") >= 1 {
		w := f[len(f)-1]
		c := w[len(w)-1]
		return c == 'A' || c == 'B' || c == 'C' || c == 'Q'
	}
	return false
}

// TestSliceNeverTheWholeCard: the recogniser every reader, bill and config
// goes through (GPUName, Canonical, Lookup) reads a slice as the slice: on
// main "GRID A100-10C" was the A100-40GB with its 40 GB.
func TestSliceNeverTheWholeCard(t *testing.T) {
	tests := []struct {
		text, model string
		count       int
		memGB       float64
		tflops      float64
	}{
		{"GRID A100-10C", "A100-10C", 1, 10, 0},
		{"2 x NVIDIA A100-4C", "A100-4C", 2, 4, 0},
		{"GRID T4-4Q", "T4-4Q", 1, 4, 0},
		// 3 of 7 compute slices of the A100's 312 TFLOPS.
		{"NVIDIA A100-SXM4-80GB MIG 3g.40gb", "A100-80GB MIG 3g.40gb", 1, 40, 312.0 * 3 / 7},
		{"NVIDIA A100-SXM4-40GB MIG 1g.5gb", "A100-40GB MIG 1g.5gb", 1, 5, 312.0 / 7},
	}
	cat := NewCatalog()
	for _, tt := range tests {
		m, n, ok := cat.GPUName(tt.text)
		if !ok || m != tt.model || n != tt.count {
			t.Errorf("GPUName(%q) = %q, %d, %v; want %q, %d", tt.text, m, n, ok, tt.model, tt.count)
		}
		spec, ok := Lookup(tt.text)
		if !ok || spec.MemoryGB != tt.memGB || math.Abs(spec.TFLOPS-tt.tflops) > 1e-9 || spec.NVLink {
			t.Errorf("Lookup(%q) = %+v, %v; want %v GB, %v TFLOPS, no NVLink", tt.text, spec, ok, tt.memGB, tt.tflops)
		}
		// The recorded name reads back as the same slice.
		if s2, ok2 := ParseSlice(m); !ok2 || s2.MemoryGB != tt.memGB || s2.Parent == "" {
			t.Errorf("ParseSlice(%q) = %+v, %v; want the slice of %q read back", m, s2, ok2, tt.text)
		}
	}
	// Generated: no profile of any catalog parent is its parent's model.
	rng := rand.New(rand.NewSource(341))
	for i := 0; i < 2000; i++ {
		spec := Specs()[rng.Intn(len(Specs()))]
		if spec.MemoryGB < 1 {
			continue
		}
		gb := 1 + rng.Intn(int(spec.MemoryGB))
		name := fmt.Sprintf("NVIDIA %s MIG %dg.%dgb", spec.Model, 1+rng.Intn(4), gb)
		if _, isSlice := ParseSlice(name); !isSlice {
			continue // a card without MIG: not a slice, nothing to check
		}
		if m, ok := Canonical(name); !ok || m == spec.Model || Key(m) == Key(Model(spec.Model)) {
			t.Fatalf("Canonical(%q) = %q, %v: a slice read as the card", name, m, ok)
		}
		if got, ok := Lookup(name); !ok || got.MemoryGB != float64(gb) {
			t.Fatalf("Lookup(%q) = %+v, %v; want %d GB", name, got, ok, gb)
		}
	}
}

// TestAzurePartialA10: Azure's smaller NVadsA10 v5 sizes are slices of one
// A10, their fractions those Azure states (1/6, 1/3, 1/2 GPU), read back
// from the slice's memory over the A10's 24 GB; the full size is the card.
func TestAzurePartialA10(t *testing.T) {
	cat := NewCatalog()
	for _, tt := range []struct {
		size  string
		share float64 // Azure's "GPU" column
	}{{"Standard_NV6ads_A10_v5", 1.0 / 6}, {"Standard_NV12ads_A10_v5", 1.0 / 3}, {"Standard_NV18ads_A10_v5", 0.5}} {
		m, n, ok := cat.Instance(tt.size)
		s, isSlice := ParseSlice(m)
		if !ok || n != 1 || !isSlice || s.Parent != "A10" || math.Abs(s.MemoryFraction-tt.share) > 1e-12 {
			t.Errorf("%s: %q × %d (%v), slice %+v; want one slice of an A10 worth %v", tt.size, m, n, ok, s, tt.share)
		}
	}
	if m, n, ok := cat.Instance("Standard_NV36ads_A10_v5"); !ok || m != "A10" || n != 1 {
		t.Errorf("NV36ads: %q × %d, want one whole A10", m, n)
	}
}
