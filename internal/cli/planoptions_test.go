package cli

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/config"
)

// TestPlanOptions: the catalog's prices, the currency and the fx rates go
// to the planner; a rate that is not a number names its key.
func TestPlanOptions(t *testing.T) {
	h := 2.5
	c := &config.Config{Currency: "USD", FX: map[string]string{"CNY": " 0.14 "},
		Prices: []config.Price{{Provider: "lab", GPUModel: "H100", Hourly: &h, Currency: "USD", AsOf: "2026-11-01"}}}
	opt, err := planOptions(c, []string{"finetune"})
	if err != nil {
		t.Fatal(err)
	}
	if opt.Currency != "USD" || len(opt.Only) != 1 || opt.FX["CNY"] != 0.14 || len(opt.Prices) != 1 ||
		opt.Prices[0].GPUModel != "H100" || *opt.Prices[0].Hourly != 2.5 || opt.Prices[0].AsOf != "2026-11-01" {
		t.Errorf("%+v", opt)
	}
	c.FX["EUR"] = "one"
	if _, err := planOptions(c, nil); err == nil || !strings.Contains(err.Error(), "fx.EUR") {
		t.Errorf("err %v, want one naming fx.EUR", err)
	}
}
