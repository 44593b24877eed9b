package rollup

import (
	"regexp"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/amount"
)

// textConverter rewrites the amounts a shard's sentences quote (a
// finding's text, a recommendation's reason: "idle 52 h, ¥1,842 of GPU
// time") from the shard's currency into the rollup's, so that a rollup in
// USD does not print a shard's findings in ¥ beside a MONEY column in $.
// The analysis writes them with amount.Rounded; each is converted at the
// rate and written the same way in the rollup's currency. Text in another
// form is left as it is.
type textConverter struct {
	re     *regexp.Regexp
	symbol bool
	to     string
	rate   decimal.Decimal
}

func newTextConverter(from, to string, rate decimal.Decimal) *textConverter {
	num := `([0-9][0-9,]*(?:\.[0-9]+)?)`
	if sym := amount.Symbol(from); sym != "" {
		return &textConverter{re: regexp.MustCompile(`(-?)(JP)?` + regexp.QuoteMeta(sym) + num), symbol: true, to: to, rate: rate}
	}
	if code := amount.Code(from); code != "" {
		return &textConverter{re: regexp.MustCompile(`(-?)` + num + ` ` + regexp.QuoteMeta(code) + `\b`), to: to, rate: rate}
	}
	return nil
}

func (c *textConverter) convert(s string) string {
	if c == nil || s == "" {
		return s
	}
	return c.re.ReplaceAllStringFunc(s, func(m string) string {
		g := c.re.FindStringSubmatch(m)
		sign, digits := g[1], g[len(g)-1]
		if c.symbol && g[2] != "" {
			return m // JP¥ in a yuan shard's text: not its currency
		}
		v, err := decimal.NewFromString(strings.ReplaceAll(digits, ",", ""))
		if err != nil {
			return m
		}
		if sign == "-" {
			v = v.Neg()
		}
		return amount.Rounded(c.to, v.Mul(c.rate).InexactFloat64())
	})
}
