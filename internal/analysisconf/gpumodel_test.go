package analysisconf

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gpu"
)

// TestGPUModelSpellings: a gpu_model written in a driver's or a bill's
// spelling means the model ingest records (package gpu), in the price
// catalog and the purchase block alike (instance_types: source's
// TestCatalogGPUModelSpellings checks they read as gpu.Model reads these);
// a name finops does not know is kept as written. The wants are NVIDIA's
// names for these cards.
func TestGPUModelSpellings(t *testing.T) {
	const buy = "price_per_gpu: 1, depreciation_years: 3, power_watts: 400, pue: 1.2, electricity_price: 1, load: 0.8"
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
		y := "prices: [{provider: p, gpu_model: " + tc.written + ", hourly: 1}]\n" +
			"purchase: [{gpu_model: " + tc.written + ", " + buy + "}]\n"
		c, err := config.Parse("f.yaml", []byte(y))
		if err != nil {
			t.Fatalf("%s: %v", tc.written, err)
		}
		if p := Prices(c); len(p) != 1 || p[0].GPUModel != tc.want {
			t.Errorf("prices: %q → %+v, want %q", tc.written, p, tc.want)
		}
		if a := PurchaseAssumptions(c); len(a) != 1 || a[0].GPUModel != tc.want {
			t.Errorf("purchase: %q → %+v, want %q", tc.written, a, tc.want)
		}
	}

	// Two spellings of one card are one purchase.
	y := "purchase: [{gpu_model: A100-80GB, " + buy + "}, {gpu_model: A100-SXM4-80GB, " + buy + "}]"
	if _, err := config.Parse("f.yaml", []byte(y), config.GPUModelCheck(gpu.Model)); err == nil || !strings.Contains(err.Error(), "purchase[1] (A100-SXM4-80GB): gpu_model appears twice: purchase[0] (A100-80GB) is the same card") {
		t.Errorf("two spellings of the A100-80GB: %v", err)
	}
}
