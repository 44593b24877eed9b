package source

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gpu"
)

// TestCatalogGPUModelSpellings: invariant — an instance_types gpu_model is
// recorded as gpu.Model reads it, the one reading ingest applies to a bill's
// or a driver's name, whatever its spelling. The names and what they mean
// are gpu's and analysisconf's tests (TestGPUModelSpellings holds the table
// of NVIDIA's names); here generated spellings of them — case, spaces,
// vendor prefixes, unknown names — must come out of the catalog exactly as
// gpu.Model gives them.
func TestCatalogGPUModelSpellings(t *testing.T) {
	base := []string{"A100-80GB", "A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "a100 80g", "A100", "H100 SXM",
		"GeForce RTX 4090", "RTX 4090D", "RTX PRO 6000 Blackwell", "L40S", "Made Up GPU 9000"}
	rng := rand.New(rand.NewPCG(35, 2))
	spell := func(s string) string {
		switch rng.IntN(4) {
		case 0:
			s = strings.ToLower(s)
		case 1:
			s = strings.ToUpper(s)
		case 2:
			s = "NVIDIA " + s
		}
		if rng.IntN(2) == 0 {
			s = strings.ReplaceAll(s, " ", "  ")
		}
		return s
	}
	for i := range 200 {
		written := base[i%len(base)]
		if i >= len(base) {
			written = spell(written)
		}
		y := fmt.Sprintf("instance_types: [{name: my.gpu8, gpu_model: %q, gpu_count: 8}]\n", written)
		c, err := config.Parse("f.yaml", []byte(y))
		if err != nil {
			t.Fatalf("%q: %v", written, err)
		}
		want := gpu.Model(written)
		if m, n, ok := Catalog(c).Instance("my.gpu8"); !ok || m != want || n != 8 {
			t.Errorf("instance_types: %q → %q, %d, %v; want gpu.Model's %q, 8", written, m, n, ok, want)
		}
	}
}
