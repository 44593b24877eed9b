package source

import (
	"testing"

	"github.com/finops-oss/finops/internal/config"
)

// TestCatalogGPUModelSpellings: an instance_types gpu_model written in a
// driver's or a bill's spelling means the model ingest records (package gpu),
// as it does in the price catalog and the purchase block (analysisconf's
// TestGPUModelSpellings); a name finops does not know is kept as written.
// The wants are NVIDIA's names for these cards.
func TestCatalogGPUModelSpellings(t *testing.T) {
	for _, tc := range []struct {
		written, want string
	}{
		{"A100-80GB", "A100-80GB"},
		{"A100-SXM4-80GB", "A100-80GB"},
		{"NVIDIA A100 80GB PCIe", "A100-80GB"},
		{"a100 80g", "A100-80GB"},
		{"A100", "A100-40GB"},
		{"GeForce RTX 4090", "RTX 4090"},
		{"RTX 4090D", "RTX 4090D"},
		{"RTX PRO 6000 Blackwell", "RTX PRO 6000 Blackwell"},
	} {
		y := "instance_types: [{name: my.gpu8, gpu_model: " + tc.written + ", gpu_count: 8}]\n"
		c, err := config.Parse("f.yaml", []byte(y))
		if err != nil {
			t.Fatalf("%s: %v", tc.written, err)
		}
		if m, n, ok := Catalog(c).Instance("my.gpu8"); !ok || m != tc.want || n != 8 {
			t.Errorf("instance_types: %q → %q, %d, %v; want %q, 8", tc.written, m, n, ok, tc.want)
		}
	}
}
