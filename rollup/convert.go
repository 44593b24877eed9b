package rollup

import (
	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/report"
	"github.com/shopspring/decimal"
)

// converted returns r with every amount of money converted at rate into the
// currency to: each amount on its own, in decimal, from the cents the
// shard's JSON holds, and rounded to to's minor unit (unit costs, a fraction
// of a cent, are not rounded). So a converted total can differ from the sum
// of its converted parts by a minor unit per part. The amounts are those the
// JSON summary rounds (report.EachMoney), so a new one is converted once it
// is rounded; that includes sections Combine drops, which it converts
// needlessly but harmlessly. The lists are copied: r is not changed.
func converted(r analysis.Result, rate decimal.Decimal, to string) analysis.Result {
	if rate.Equal(decimal.NewFromInt(1)) {
		r.Currency = to
		return r
	}
	report.EachMoney(&r, func(v *float64, perUnit bool) {
		c := decimal.NewFromFloat(*v).Mul(rate).InexactFloat64()
		if !perUnit {
			c = amount.RoundMinor(to, c)
		}
		*v = c
	})
	r.Currency = to
	return r
}
