package analysisconf

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gpu"
)

// The commented purchase block of finops.example.yaml, uncommented, is a valid
// config that converts to the worked example's assumptions.
func TestExamplePurchaseBlock(t *testing.T) {
	b, err := os.ReadFile("../../finops.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "\n# purchase:\n")
	if !ok {
		t.Fatal("finops.example.yaml has no commented purchase block")
	}
	var y strings.Builder
	y.WriteString("purchase:\n")
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		y.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ") + "\n")
	}
	c, err := config.Parse("purchase block", []byte(y.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, y.String())
	}
	got := PurchaseAssumptions(c)
	margin := 15.0
	want := analysis.PurchaseAssumption{GPUModel: "A100-80GB", PricePerGPU: 100000, ServerShare: 20000, DepreciationYears: 3,
		Residual: 0.10, PowerWatts: 400, PUE: 1.25, ElectricityPrice: 1.00, Load: 0.8, HostingPerGPUMonth: 300,
		OpsPerGPUMonth: 200, Currency: "CNY", MarginPoints: &margin}
	if len(got) != 1 || *got[0].MarginPoints != 15 {
		t.Fatalf("assumptions = %+v", got)
	}
	g := got[0]
	if g.MinCoverage == nil || math.Abs(*g.MinCoverage-analysis.DefaultMinTelemetryCoverage) > 0.001 {
		t.Errorf("min_coverage = %v, want the example's %v", g.MinCoverage, analysis.DefaultMinTelemetryCoverage)
	}
	g.MarginPoints, want.MarginPoints, g.MinCoverage = nil, nil, nil
	if g != want {
		t.Errorf("assumptions = %+v\nwant %+v", g, want)
	}
}

func TestPurchaseDefaultsAndErrors(t *testing.T) {
	c, err := config.Parse("f.yaml", []byte("purchase: [{gpu_model: H100, price_per_gpu: 200000, depreciation_years: 4, power_watts: 700, pue: 1.3, electricity_price: 0.8, load: 0.7}]"))
	if err != nil {
		t.Fatal(err)
	}
	a := PurchaseAssumptions(c)[0]
	if *a.MarginPoints != analysis.DefaultMarginPoints || a.ServerShare != 0 || a.Residual != 0 || a.Currency != "" {
		t.Errorf("defaults = %+v", a)
	}
	// An explicit margin of 0 stays 0.
	c, err = config.Parse("f.yaml", []byte("purchase: [{gpu_model: H100, price_per_gpu: 1, depreciation_years: 4, power_watts: 0, pue: 1, electricity_price: 0, load: 1, margin_points: 0}]"))
	if err != nil || *PurchaseAssumptions(c)[0].MarginPoints != 0 {
		t.Errorf("explicit margin 0: %v", err)
	}
	// min_coverage is passed on as given; unset, the review's default applies.
	if a.MinCoverage != nil {
		t.Errorf("min_coverage unset = %v, want nil (analysis.DefaultMinTelemetryCoverage)", *a.MinCoverage)
	}
	c, err = config.Parse("f.yaml", []byte("purchase: [{gpu_model: H100, price_per_gpu: 1, depreciation_years: 4, power_watts: 0, pue: 1, electricity_price: 0, load: 1, min_coverage: 0.3}]"))
	if err != nil || PurchaseAssumptions(c)[0].MinCoverage == nil || *PurchaseAssumptions(c)[0].MinCoverage != 0.3 {
		t.Errorf("min_coverage 0.3: %v", err)
	}
	const ok = "price_per_gpu: 1, depreciation_years: 3, power_watts: 400, pue: 1.2, electricity_price: 1, load: 0.8"
	for _, tc := range []struct{ yaml, want string }{
		{"purchase: [{price_per_gpu: 1}]", "gpu_model is required"},
		{"purchase: [{gpu_model: A100}]", "price_per_gpu, depreciation_years, power_watts, pue, electricity_price, load required"},
		{"purchase: [{gpu_model: A100, " + ok + ", residual: 1}]", "residual"},
		{"purchase: [{gpu_model: A100, " + ok + ", margin_points: -1}]", "margin_points"},
		{"purchase: [{gpu_model: A100, " + ok + ", min_coverage: 1.5}]", "min_coverage"},
		{"purchase: [{gpu_model: A100, price_per_gpu: 1, depreciation_years: 0, power_watts: 400, pue: 1.2, electricity_price: 1, load: 0.8}]", "depreciation_years"},
		{"purchase: [{gpu_model: A100, price_per_gpu: 1, depreciation_years: 3, power_watts: 400, pue: 0.9, electricity_price: 1, load: 0.8}]", "pue"},
		{"purchase: [{gpu_model: A100, price_per_gpu: 1, depreciation_years: 3, power_watts: 400, pue: 1.2, electricity_price: 1, load: 1.5}]", "load"},
		{"purchase: [{gpu_model: A100, " + ok + "}, {gpu_model: a100, " + ok + "}]", "appears twice"},
		{"purchase: [{gpu_model: A100, " + ok + ", price: 3}]", "unknown key purchase[0].price; the keys under purchase[0] are"},
	} {
		_, err := config.Parse("f.yaml", []byte(tc.yaml), config.GPUModelCheck(gpu.Model))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.yaml, err, tc.want)
		}
	}
}
