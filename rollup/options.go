package rollup

import (
	"path/filepath"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/report"
	"github.com/shopspring/decimal"
)

// NewOptions is a rollup into currency, with the config's fx rates
// (RatesFromFX) and the --rate flags (ParseRate; a malformed one refused).
func NewOptions(currency string, fx map[string]decimal.Decimal, rates []string) (Options, error) {
	opt := Options{Currency: currency, Rates: RatesFromFX(currency, fx)}
	for _, s := range rates {
		r, err := ParseRate(s)
		if err != nil {
			return Options{}, err
		}
		opt.Rates = append(opt.Rates, r)
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
