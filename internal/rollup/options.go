package rollup

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/report"
)

// NewOptions is a rollup into currency, with the config's fx rates
// (RatesFromFX) and the --rate flags (ParseRate; a malformed one refused).
// Each pair of currencies has one rate, so that no rate given is silently
// not the one used: a second --rate for a pair, or for its inverse, is
// refused naming both, and so is a --rate that says otherwise than the
// config's fx for the same pair (one that repeats it is taken once).
func NewOptions(currency string, fx map[string]decimal.Decimal, rates []string) (Options, error) {
	opt := Options{Currency: currency}
	type given struct {
		as   string
		rate Rate
		flag bool
	}
	seen := map[[2]string]given{}
	add := func(r Rate, as string, flag bool) error {
		k := [2]string{r.From, r.To}
		if k[1] < k[0] {
			k = [2]string{r.To, r.From}
		}
		if first, ok := seen[k]; ok {
			if !first.flag && first.rate.From == r.From && first.rate.Value.Equal(r.Value) {
				return nil
			}
			return refuse("%s and %s both give the rate between %s and %s: give one rate per pair of currencies "+
				"(its inverse is derived); remove one of them", first.as, as, k[0], k[1])
		}
		seen[k] = given{as: as, rate: r, flag: flag}
		opt.Rates = append(opt.Rates, r)
		return nil
	}
	fxRates := RatesFromFX(currency, fx)
	slices.SortFunc(fxRates, func(a, b Rate) int { return strings.Compare(a.From, b.From) })
	for _, r := range fxRates {
		if err := checkRange(r); err != nil {
			return Options{}, refuse("the config's fx: {%s: %s}: %v: set it to the number of %s one %s is", r.From, r.Value, err, r.To, r.From)
		}
		if err := add(r, fmt.Sprintf("the config's fx: {%s: %s} (currency: %s)", r.From, r.Value, r.To), false); err != nil {
			return Options{}, err
		}
	}
	for _, s := range rates {
		r, err := ParseRate(s)
		if err != nil {
			return Options{}, err
		}
		if err := add(r, fmt.Sprintf("--rate %s", strings.TrimSpace(s)), true); err != nil {
			return Options{}, err
		}
	}
	return opt, nil
}

// CheckOut refuses to write res's reports in formats into dir over one of
// the shards: the rollup's files take the shards' names (finops-<period>.*),
// and one written over a shard it reads would lose that shard's own report.
func CheckOut(dir string, shards []Shard, res *analysis.Result, formats []string) error {
	for _, s := range shards {
		for _, f := range formats {
			if sameFile(filepath.Join(dir, report.BaseName(res, report.Meta{})+"."+f), s.Path) {
				return refuse("--out %s would write the rollup over shard %s (%s): choose another --out", dir, s.Name, s.Path)
			}
		}
	}
	return nil
}

func sameFile(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}
