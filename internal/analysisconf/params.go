// Package analysisconf turns a loaded config into the analysis's terms: its
// parameters (thresholds, zone, currency, FX, grouping, chargeback, energy),
// resources, teams, prices and purchase assumptions.
//
// The config is a leaf that knows no analysis type, so this is the one place
// that converts its plain values, for reports, reviews, rollups and the
// watch. It is its own package, not part of reportjob, for two reasons: the
// CLI and the watch use it without loading a report, and its fuzz target
// (FuzzConversions) builds a coverage-instrumented test binary of config,
// analysis and gpu only instead of one that drags in the store's SQLite and
// the cloud SDKs (go test -fuzz instruments every package in the binary).
package analysisconf

import (
	"strings"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gpu"
)

// Params turns thresholds, zone and currency into analysis.Params.
func Params(c *config.Config) (analysis.Params, error) {
	p := analysis.DefaultParams()
	loc, err := c.Location()
	if err != nil {
		return p, err
	}
	p.Location = loc
	p.Currency = strings.ToUpper(c.Currency)
	p.TrendWeeks = c.TrendWeeks()
	if p.FX, err = c.FXRates(); err != nil {
		return p, err
	}
	thresholdParams(&p, c.Thresholds)
	p.GroupBy = c.Report.GroupBy
	p.Chargeback = analysis.ChargebackRules{Unallocated: c.Chargeback.Unallocated, Idle: c.Chargeback.Idle}
	p.Energy = energyParams(c.Energy)
	p.StaleAfter = c.StaleAfter()
	return p, nil
}

// thresholdParams puts the thresholds that are given over the defaults.
func thresholdParams(p *analysis.Params, t config.Thresholds) {
	for _, o := range []struct {
		v   *float64
		dst *float64
	}{{t.IdleUtilization, &p.IdleThreshold}, {t.ReleaseSlack, &p.ReleaseSlack}, {t.SpotInflation, &p.SpotInflation},
		{t.ReleaseBelowHours, &p.ReleaseBelow}, {t.MinSavingsAmount, &p.MinSavingsAbs}, {t.MinCoverage, &p.MinCoverage}} {
		if o.v != nil {
			*o.dst = *o.v
		}
	}
	if t.IdleMinSpan.Duration > 0 {
		p.IdleMinSpan = t.IdleMinSpan.Duration
	}
	if len(t.TargetBand) == 2 {
		p.TargetBandLow, p.TargetBandHigh = t.TargetBand[0], t.TargetBand[1]
	}
	if t.MinSavingsPercent != nil {
		p.MinSavingsPct = *t.MinSavingsPercent / 100
	}
}

// energyParams converts the energy section for the analysis.
func energyParams(e config.Energy) analysis.EnergyParams {
	p := analysis.EnergyParams{Regions: e.GridIntensity.Regions, Providers: e.GridIntensity.Providers}
	if e.PUE != nil {
		p.PUE = *e.PUE
	}
	if d := e.GridIntensity.Default; d != nil {
		v := *d
		p.Default = &v
	}
	return p
}

// Resources converts the resource map.
func Resources(c *config.Config) []analysis.Resource {
	out := make([]analysis.Resource, 0, len(c.Resources))
	for _, r := range c.Resources {
		out = append(out, analysis.Resource{ID: r.ID, Hosts: r.Hosts, GPUs: r.GPUs, Team: r.Team,
			Interruptible: r.Interruptible})
	}
	return out
}

// Teams converts the teams.
func Teams(c *config.Config) []analysis.Team {
	out := make([]analysis.Team, 0, len(c.Teams))
	for _, t := range c.Teams {
		out = append(out, analysis.Team{Name: t.Name, Tag: t.Tag, MonthlyBudget: t.MonthlyBudget})
	}
	return out
}

// Prices flattens the price catalog into one row per mode, each
// gpu_model read as ingest reads a bill's (gpu.Model), so a row written
// "A100-SXM4-80GB" prices the A100-80GB lines.
func Prices(c *config.Config) []analysis.Price {
	var out []analysis.Price
	for _, p := range c.Prices {
		for _, m := range []struct {
			mode string
			v    *float64
		}{{finops.ModeHourly, p.Hourly}, {finops.ModeDaily, p.Daily}, {finops.ModeWeekly, p.Weekly},
			{finops.ModeMonthly, p.Monthly}, {finops.ModeSpot, p.Spot}} {
			if m.v != nil {
				out = append(out, analysis.Price{Provider: p.Provider, GPUModel: gpu.Model(p.GPUModel), Mode: m.mode,
					Price: *m.v, Currency: p.Currency, AsOf: p.AsOf})
			}
		}
	}
	return out
}

// PurchaseAssumptions converts the purchase block for analysis.RentOrBuy,
// with the margin defaulted to analysis.DefaultMarginPoints and gpu_model
// read as ingest reads a bill's (gpu.Model).
func PurchaseAssumptions(c *config.Config) []analysis.PurchaseAssumption {
	val := func(v *float64) float64 {
		if v == nil {
			return 0
		}
		return *v
	}
	out := make([]analysis.PurchaseAssumption, 0, len(c.Purchase))
	for _, p := range c.Purchase {
		margin := float64(analysis.DefaultMarginPoints)
		if p.MarginPoints != nil {
			margin = *p.MarginPoints
		}
		out = append(out, analysis.PurchaseAssumption{
			GPUModel: gpu.Model(p.GPUModel), PricePerGPU: val(p.PricePerGPU), ServerShare: p.ServerShare,
			DepreciationYears: val(p.DepreciationYears), Residual: p.Residual, PowerWatts: val(p.PowerWatts),
			PUE: val(p.PUE), ElectricityPrice: val(p.ElectricityPrice), Load: val(p.Load),
			HostingPerGPUMonth: p.HostingPerGPUMonth, OpsPerGPUMonth: p.OpsPerGPUMonth,
			Currency: strings.ToUpper(p.Currency), MarginPoints: &margin, MinCoverage: p.MinCoverage,
		})
	}
	return out
}
