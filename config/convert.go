package config

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/gpu"
	"github.com/finops-oss/finops/ingest"
	"github.com/shopspring/decimal"
)

// DefaultLookback is the recommendation lookback of metrics.md.
const DefaultLookback = 28 * 24 * time.Hour

// DefaultStaleAfter: a telemetry source is stale where a resource it serves
// is billed more than a day past its last sample (analysis/stale.go).
const DefaultStaleAfter = analysis.DefaultStaleAfter

// Lookback is the configured recommendation lookback.
func (c *Config) Lookback() time.Duration {
	if c.Thresholds.Lookback.Duration > 0 {
		return c.Thresholds.Lookback.Duration
	}
	return DefaultLookback
}

// StaleAfter is how long past a telemetry source's last sample (and one
// sampling interval) a resource it serves may be billed before the
// data-quality box calls the source stale.
func (c *Config) StaleAfter() time.Duration {
	if c.Thresholds.StaleAfter.Duration > 0 {
		return c.Thresholds.StaleAfter.Duration
	}
	return DefaultStaleAfter
}

// DefaultMaxRestatementDrop: a new delivery of a billing period a fifth or
// more below the one it replaced is a lost bill more often than a refund.
const DefaultMaxRestatementDrop = 0.2

// MaxRestatementDrop is thresholds.max_restatement_drop, or its default: the
// drop of a period's total, from one delivery to the next, beyond which the
// period's reports are incomplete.
func (c *Config) MaxRestatementDrop() float64 {
	if c.Thresholds.MaxRestatementDrop != nil {
		return *c.Thresholds.MaxRestatementDrop
	}
	return DefaultMaxRestatementDrop
}

// AnalysisParams turns thresholds, zone and currency into analysis.Params.
func (c *Config) AnalysisParams() (analysis.Params, error) {
	p := analysis.DefaultParams()
	loc, err := c.Location()
	if err != nil {
		return p, err
	}
	p.Location = loc
	p.Currency = strings.ToUpper(c.Currency)
	p.TrendWeeks = c.TrendWeeks()
	p.FX = map[string]decimal.Decimal{}
	for cur, rate := range c.FX {
		d, err := parsePositive(rate)
		if err != nil {
			return p, fmt.Errorf("config: fx.%s: %w", cur, err)
		}
		p.FX[strings.ToUpper(cur)] = d
	}
	t := c.Thresholds
	if t.IdleUtilization != nil {
		p.IdleThreshold = *t.IdleUtilization
	}
	if t.IdleMinSpan.Duration > 0 {
		p.IdleMinSpan = t.IdleMinSpan.Duration
	}
	if len(t.TargetBand) == 2 {
		p.TargetBandLow, p.TargetBandHigh = t.TargetBand[0], t.TargetBand[1]
	}
	if t.ReleaseSlack != nil {
		p.ReleaseSlack = *t.ReleaseSlack
	}
	if t.SpotInflation != nil {
		p.SpotInflation = *t.SpotInflation
	}
	if t.ReleaseBelowHours != nil {
		p.ReleaseBelow = *t.ReleaseBelowHours
	}
	if t.MinSavingsPercent != nil {
		p.MinSavingsPct = *t.MinSavingsPercent / 100
	}
	if t.MinSavingsAmount != nil {
		p.MinSavingsAbs = *t.MinSavingsAmount
	}
	if t.MinCoverage != nil {
		p.MinCoverage = *t.MinCoverage
	}
	p.GroupBy, p.Chargeback = c.allocationParams()
	p.Energy = c.Energy.params()
	p.StaleAfter = c.StaleAfter()
	return p, nil
}

// AnalysisResources converts the resource map.
func (c *Config) AnalysisResources() []analysis.Resource {
	out := make([]analysis.Resource, 0, len(c.Resources))
	for _, r := range c.Resources {
		out = append(out, analysis.Resource{ID: r.ID, Hosts: r.Hosts, GPUs: r.GPUs, Team: r.Team,
			Interruptible: r.Interruptible})
	}
	return out
}

// AnalysisTeams converts the teams.
func (c *Config) AnalysisTeams() []analysis.Team {
	out := make([]analysis.Team, 0, len(c.Teams))
	for _, t := range c.Teams {
		out = append(out, analysis.Team{Name: t.Name, Tag: t.Tag, MonthlyBudget: t.MonthlyBudget})
	}
	return out
}

// AnalysisPrices flattens the price catalog into one row per mode, each
// gpu_model read as ingest reads a bill's (gpu.Model), so a row written
// "A100-SXM4-80GB" prices the A100-80GB lines.
func (c *Config) AnalysisPrices() []analysis.Price {
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

// ColumnMappings returns the configured rental mappings, named, in a stable
// order, ahead of the built-in ones.
func (c *Config) ColumnMappings() ([]ingest.ColumnMapping, error) {
	var out []ingest.ColumnMapping
	for _, name := range sortedNames(c.Mappings) {
		m := c.Mappings[name]
		cm := ingest.ColumnMapping{Name: name, Provider: m.Provider, Currency: m.Currency, Columns: m.Columns, Modes: m.Modes,
			Encoding: m.Encoding}
		if m.Timezone != "" {
			loc, err := time.LoadLocation(m.Timezone)
			if err != nil {
				return nil, fmt.Errorf("config: mappings.%s.timezone: %w", name, err)
			}
			cm.Location = loc
		}
		if err := cm.Validate(); err != nil {
			return nil, fmt.Errorf("config: mappings.%s: %w", name, err)
		}
		out = append(out, cm)
	}
	return append(out, ingest.BuiltinMappings()...), nil
}

// Catalog is the built-in GPU instance catalog extended by instance_types,
// whose gpu_model is read as a bill's is: an instance type declared with
// "A100-SXM4-80GB" bills the A100-80GB that other sources name.
func (c *Config) Catalog() *gpu.Catalog {
	cat := gpu.NewCatalog()
	for _, it := range c.Instances {
		cat.Add(it.Name, gpu.Model(it.GPUModel), it.GPUCount)
	}
	return cat
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
