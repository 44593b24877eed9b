package cli

import (
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/plan"
)

// planOptions passes the config's price catalog, currency and rates to the
// planner (finops plan), which plans the scenarios named in only (all when
// none); the scenario file's own take precedence. It lives here, not in
// config, so that config links no planner (nor its workbook library).
func planOptions(c *config.Config, only []string) (plan.Options, error) {
	opt := plan.Options{Currency: c.Currency, Only: only}
	for _, p := range c.Prices {
		opt.Prices = append(opt.Prices, plan.Price{Provider: p.Provider, GPUModel: p.GPUModel, Hourly: p.Hourly,
			Monthly: p.Monthly, Spot: p.Spot, Currency: p.Currency, AsOf: p.AsOf})
	}
	// The rates as the report reads them (config.FXRates: decimals, codes
	// upper-cased), so the planner cannot accept a spelling the report refuses.
	rates, err := c.FXRates()
	if err != nil {
		return opt, err
	}
	if len(rates) > 0 {
		opt.FX = map[string]float64{}
		for cur, d := range rates {
			opt.FX[cur] = d.InexactFloat64()
		}
	}
	return opt, nil
}
