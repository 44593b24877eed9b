package config

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// DefaultLookback is the recommendation lookback of metrics.md.
const DefaultLookback = 28 * 24 * time.Hour

// DefaultStaleAfter: a telemetry source is stale where a resource it serves
// is billed more than a day past its last sample (analysis/stale.go; the
// same value as analysis.DefaultStaleAfter, TestDefaultsMatchAnalysis).
const DefaultStaleAfter = 24 * time.Hour

// The analysis's defaults the thresholds are checked against when left out
// (analysis.DefaultParams; TestDefaultsMatchAnalysis keeps them equal): a
// leaf config holds them as plain numbers rather than importing the analysis.
const (
	DefaultIdleUtilization = 10.0
	DefaultTargetBandLow   = 80.0
	DefaultTargetBandHigh  = 95.0
)

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

// FXRates are the fx rates keyed by upper-case currency code: 1 unit of the
// key is the rate in the reporting currency.
func (c *Config) FXRates() (map[string]decimal.Decimal, error) {
	out := map[string]decimal.Decimal{}
	for cur, rate := range c.FX {
		d, err := parsePositive(rate)
		if err != nil {
			return out, fmt.Errorf("config: fx.%s: %w", cur, err)
		}
		out[strings.ToUpper(cur)] = d
	}
	return out, nil
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
