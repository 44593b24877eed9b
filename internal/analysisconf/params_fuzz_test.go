package analysisconf

import (
	"bytes"
	"testing"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gpu"
)

// FuzzConversions: every config that loads converts into the analysis's
// terms without an error or a panic (this part of config's fuzz moved here
// with the conversions).
func FuzzConversions(f *testing.F) {
	for _, s := range []string{
		"", "currency: CNY\nfx: {USD: '7.1'}", "thresholds: {idle_utilization: 5, target_band: [60, 90], min_savings_percent: 10}",
		"prices: [{provider: p, gpu_model: A100-SXM4-80GB, hourly: 1.5, spot: 0.5}]",
		"purchase: [{gpu_model: H100, price_per_gpu: 1, depreciation_years: 3, power_watts: 400, pue: 1.2, electricity_price: 1, load: 0.8}]",
		"teams: [{name: a, tag: x}]\nresources: [{id: r, team: a}]\nchargeback: {idle: 'team:a'}\nreport: {group_by: [tag:p]}",
		"energy: {pue: 1.2, grid_intensity: {default: 400, regions: {eu: 30}}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 || bytes.Contains(data, []byte("price_catalog")) {
			return
		}
		c, err := config.Parse("fuzz.yaml", data, config.GPUModelCheck(gpu.Model))
		if err != nil {
			return
		}
		p, err := Params(c)
		if err != nil {
			t.Fatalf("a valid config's analysis parameters: %v", err)
		}
		if p.TrendWeeks != c.TrendWeeks() || p.StaleAfter != c.StaleAfter() {
			t.Fatalf("params %+v do not carry the config's trend weeks and stale limit", p)
		}
		if n := len(Resources(c)); n != len(c.Resources) {
			t.Fatalf("%d resources from %d", n, len(c.Resources))
		}
		if n := len(Teams(c)); n != len(c.Teams) {
			t.Fatalf("%d teams from %d", n, len(c.Teams))
		}
		Prices(c)
		if n := len(PurchaseAssumptions(c)); n != len(c.Purchase) {
			t.Fatalf("%d purchases from %d", n, len(c.Purchase))
		}
	})
}
