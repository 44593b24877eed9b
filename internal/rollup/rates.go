package rollup

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Rate is an exchange rate: one From is Value To ("USD/CNY=7.1": one US
// dollar is 7.1 yuan), as the config's fx says it (fx: {USD: 7.1} with
// currency: CNY).
type Rate struct {
	From, To string
	Value    decimal.Decimal
}

// ParseRate reads a --rate flag, FROM/TO=VALUE.
func ParseRate(s string) (Rate, error) {
	bad := func(why string) error {
		return refuse("--rate %q: %s; write it as FROM/TO=VALUE, e.g. --rate USD/CNY=7.1 (one USD is 7.1 CNY)", s, why)
	}
	pair, val, ok := strings.Cut(s, "=")
	if !ok {
		return Rate{}, bad("no =")
	}
	from, to, ok := strings.Cut(pair, "/")
	from, to = strings.ToUpper(strings.TrimSpace(from)), strings.ToUpper(strings.TrimSpace(to))
	if !ok || !isCode(from) || !isCode(to) {
		return Rate{}, bad("want two three-letter currency codes")
	}
	if from == to {
		return Rate{}, bad("the two currencies are the same")
	}
	v, err := decimal.NewFromString(strings.TrimSpace(val))
	if err != nil || !v.IsPositive() {
		return Rate{}, bad("the rate is not a positive number")
	}
	// A rate the decimal holds may still be one no float64 does (1e400
	// is +Inf, 1e-400 is 0): the converted amounts would be Inf or 0 at
	// write. The config's fx has the same bounds (config/bounds.go).
	r := Rate{From: from, To: to, Value: v}
	if err := checkRange(r); err != nil {
		return Rate{}, bad(err.Error())
	}
	return r, nil
}

// checkRange refuses a rate outside [minRate, maxRate].
func checkRange(r Rate) error {
	if r.Value.LessThan(minRate) || r.Value.GreaterThan(maxRate) {
		return fmt.Errorf("the rate is not between %s and %s", minRate, maxRate)
	}
	return nil
}

// minRate and maxRate bound a rate, as the config's fx is bounded: past
// them no currency is worth the other.
var (
	minRate = decimal.New(1, -9)
	maxRate = decimal.New(1, 9)
)

func isCode(c string) bool {
	if len(c) != 3 {
		return false
	}
	for _, r := range c {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// RatesFromFX turns the config's fx (one unit of each key is so many units
// of currency) into rates.
func RatesFromFX(currency string, fx map[string]decimal.Decimal) []Rate {
	var out []Rate
	to := strings.ToUpper(currency)
	for from, v := range fx {
		if from = strings.ToUpper(from); from != to && to != "" {
			out = append(out, Rate{From: from, To: to, Value: v})
		}
	}
	return out
}

// rateTable finds the rate from one currency to another: given directly,
// or the inverse of one given the other way round.
type rateTable []Rate

func (t rateTable) find(from, to string) (decimal.Decimal, bool) {
	if from == to {
		return decimal.NewFromInt(1), true
	}
	for _, r := range t {
		if r.From == from && r.To == to {
			return r.Value, true
		}
	}
	for _, r := range t {
		if r.From == to && r.To == from {
			return decimal.NewFromInt(1).DivRound(r.Value, 16), true
		}
	}
	return decimal.Decimal{}, false
}

func (r Rate) String() string { return fmt.Sprintf("%s/%s=%s", r.From, r.To, r.Value) }
