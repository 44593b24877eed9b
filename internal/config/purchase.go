package config

import (
	"fmt"
	"strings"
)

// Purchase is what buying one GPU of a model would cost, for the quarterly
// rent-or-buy review (`finops review`, docs/METRICS.md). Money is in Currency
// (default: the reporting currency); residual and load are fractions 0–1.
type Purchase struct {
	GPUModel           string   `yaml:"gpu_model"`
	PricePerGPU        *float64 `yaml:"price_per_gpu"`         // required: the card
	ServerShare        float64  `yaml:"server_share"`          // this GPU's share of the server price
	DepreciationYears  *float64 `yaml:"depreciation_years"`    // required
	Residual           float64  `yaml:"residual"`              // resale value at the end, fraction of the capex
	PowerWatts         *float64 `yaml:"power_watts"`           // required: GPU plus its share of the server
	PUE                *float64 `yaml:"pue"`                   // required, ≥ 1
	ElectricityPrice   *float64 `yaml:"electricity_price"`     // required: per kWh (0 when hosting includes power)
	Load               *float64 `yaml:"load"`                  // required: average draw as a fraction of power_watts
	HostingPerGPUMonth float64  `yaml:"hosting_per_gpu_month"` // rack space, colocation
	OpsPerGPUMonth     float64  `yaml:"ops_per_gpu_month"`     // people, support, spares
	Currency           string   `yaml:"currency"`
	MarginPoints       *float64 `yaml:"margin_points"` // default 15
	// MinCoverage is the share of a quarter's hours telemetry must have seen
	// for its utilization to vote (analysis.DefaultMinTelemetryCoverage, 2/3).
	MinCoverage *float64 `yaml:"min_coverage"`
}

// validatePurchase checks the purchase block: the required assumptions are
// there and every number is in its range. Nothing defaults silently except
// the optional costs (0), the currency and the margin.
func (c *Config) validatePurchase() []error {
	var errs []error
	for i, p := range c.Purchase {
		at := fmt.Sprintf("purchase[%d]", i)
		if p.GPUModel == "" {
			errs = append(errs, fmt.Errorf("%s: gpu_model is required", at))
		} else {
			// Two spellings of one card are one model to the review: that
			// takes the GPU catalog, so GPUModelCheck(gpu.Model), handed in by the CLI, refuses them.
			at = fmt.Sprintf("purchase[%d] (%s)", i, p.GPUModel)
		}
		var missing []string
		for _, f := range []struct {
			key string
			v   *float64
		}{{"price_per_gpu", p.PricePerGPU}, {"depreciation_years", p.DepreciationYears}, {"power_watts", p.PowerWatts},
			{"pue", p.PUE}, {"electricity_price", p.ElectricityPrice}, {"load", p.Load}} {
			if f.v == nil {
				missing = append(missing, f.key)
			}
		}
		if len(missing) > 0 {
			errs = append(errs, fmt.Errorf("%s: %s required", at, strings.Join(missing, ", ")))
		}
		key := fmt.Sprintf("purchase[%d]", i)
		var e refusals
		e.add(numRange{lo: 0, hi: maxMoney, loOpen: true}.optional(key+".price_per_gpu", p.PricePerGPU))
		e.add(numRange{lo: 0, hi: 50, loOpen: true}.optional(key+".depreciation_years", p.DepreciationYears))
		e.add(numRange{lo: 0, hi: 100000}.optional(key+".power_watts", p.PowerWatts))
		e.add(numRange{lo: 1, hi: 5}.optional(key+".pue", p.PUE))
		e.add(numRange{lo: 0, hi: maxPrice}.optional(key+".electricity_price", p.ElectricityPrice))
		e.add(numRange{lo: 0, hi: 1, loOpen: true}.optional(key+".load", p.Load))
		e.add(numRange{lo: 0, hi: maxMoney}.check(key+".server_share", p.ServerShare))
		e.add(numRange{lo: 0, hi: 1, hiOpen: true}.check(key+".residual", p.Residual))
		e.add(numRange{lo: 0, hi: maxMoney}.check(key+".hosting_per_gpu_month", p.HostingPerGPUMonth))
		e.add(numRange{lo: 0, hi: maxMoney}.check(key+".ops_per_gpu_month", p.OpsPerGPUMonth))
		e.add(numRange{lo: 0, hi: 100, hiOpen: true}.optional(key+".margin_points", p.MarginPoints))
		e.add(numRange{lo: 0, hi: 1}.optional(key+".min_coverage", p.MinCoverage))
		e.add(checkCurrency(key+".currency", p.Currency))
		errs = append(errs, e...)
	}
	return errs
}
