package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"
)

// converter turns amounts into the reporting currency.
type converter struct {
	currency string
	rates    map[string]decimal.Decimal // 1 unit of key = rate units of currency
	used     map[string]bool            // the currencies converted from, for the reports to show their rates
}

// newConverter picks the reporting currency: the configured one, else the
// data's single currency. Mixed currencies without rates are an error that
// names them, never a silent 1.0. currencies are the lines' (lineCurrencies).
func newConverter(p Params, currencies []string) (*converter, error) {
	seen := map[string]bool{}
	for _, c := range currencies {
		if c = strings.ToUpper(c); c != "" {
			seen[c] = true
		}
	}
	cur := strings.ToUpper(p.Currency)
	if cur == "" {
		switch len(seen) {
		case 0:
			cur = "USD"
		case 1:
			for c := range seen {
				cur = c
			}
		default:
			return nil, fmt.Errorf("analysis: the data has several currencies (%s): set currency and fx rates in the config", strings.Join(sortedKeys(seen), ", "))
		}
	}
	conv := &converter{currency: cur, rates: map[string]decimal.Decimal{cur: decimal.NewFromInt(1)}, used: map[string]bool{}}
	for c, r := range p.FX {
		conv.rates[strings.ToUpper(c)] = r
	}
	var missing []string
	for c := range seen {
		if _, ok := conv.rates[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("analysis: no exchange rate from %s to %s: add fx.%s to the config", strings.Join(missing, ", "), cur, missing[0])
	}
	for c := range seen {
		if c != cur {
			conv.used[c] = true
		}
	}
	return conv, nil
}

// usedRates are the rates of the currencies converted from, by currency.
func (c *converter) usedRates() []ExchangeRate {
	var out []ExchangeRate
	for _, cur := range sortedKeys(c.used) {
		out = append(out, ExchangeRate{Currency: cur, Rate: c.rates[cur].InexactFloat64()})
	}
	return out
}

// amount converts d in currency c ("" = the reporting currency).
func (c *converter) amount(d decimal.Decimal, cur string) decimal.Decimal {
	cur = strings.ToUpper(cur)
	if cur == "" || cur == c.currency {
		return d
	}
	return d.Mul(c.rates[cur])
}

// price converts a catalog price; ok is false when no rate is configured.
func (c *converter) price(v float64, cur string) (float64, bool) {
	cur = strings.ToUpper(cur)
	if cur == "" || cur == c.currency {
		return v, true
	}
	r, ok := c.rates[cur]
	if !ok {
		return 0, false
	}
	c.used[cur] = true
	return v * r.InexactFloat64(), true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
