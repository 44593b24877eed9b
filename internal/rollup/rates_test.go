package rollup

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestRatesFiniteAndPositive: a rate no float64 holds (1e400 is +Inf,
// 1e-400 is 0), zero, a negative one, NaN and Inf are refused when the
// flag is read, naming the flag and the bounds, not when the rollup is
// written ("+Inf" in issue 32). The bounds are the config's fx's.
func TestRatesFiniteAndPositive(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"USD/CNY=1e400", "the rate is not between 0.000000001 and 1000000000"},
		{"USD/CNY=1e-400", "the rate is not between 0.000000001 and 1000000000"},
		{"USD/CNY=1000000001", "the rate is not between"},
		{"USD/CNY=0", "not a positive number"},
		{"USD/CNY=-1", "not a positive number"},
		{"USD/CNY=NaN", "not a positive number"},
		{"USD/CNY=Inf", "not a positive number"},
		{"USD/CNY=+Inf", "not a positive number"},
	} {
		t.Run(c.in, func(t *testing.T) {
			_, err := NewOptions("CNY", nil, []string{c.in})
			if err == nil || !IsRefusal(err) {
				t.Fatalf("err %v: want a refusal", err)
			}
			containsAll(t, "error", err.Error(), `--rate "`+c.in+`"`, c.want, "e.g. --rate USD/CNY=7.1")
		})
	}
	// The bounds themselves are rates.
	for _, ok := range []string{"USD/CNY=0.000000001", "USD/CNY=1000000000"} {
		if _, err := NewOptions("CNY", nil, []string{ok}); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestRatesOncePerPair: two rates for one pair of currencies, or for a
// pair and its inverse, are refused naming both, whichever comes first;
// so is a --rate that differs from the config's fx for the pair. The
// config's fx repeated by a flag is one rate.
func TestRatesOncePerPair(t *testing.T) {
	fx := map[string]decimal.Decimal{"USD": decimal.RequireFromString("7.1")}
	for _, c := range []struct {
		name  string
		fx    map[string]decimal.Decimal
		rates []string
		want  string
	}{
		{"two --rate for one pair", nil, []string{"USD/CNY=7.1", "USD/CNY=7.2"},
			"--rate USD/CNY=7.1 and --rate USD/CNY=7.2 both give the rate between CNY and USD"},
		{"the same twice", nil, []string{"USD/CNY=7.1", "usd/cny=7.1"},
			"--rate USD/CNY=7.1 and --rate usd/cny=7.1 both give the rate"},
		{"a pair and its inverse", nil, []string{"USD/CNY=7.1", "CNY/USD=0.14"},
			"--rate USD/CNY=7.1 and --rate CNY/USD=0.14 both give the rate between CNY and USD"},
		{"the config and another flag", fx, []string{"USD/CNY=7.2"},
			"the config's fx: {USD: 7.1} (currency: CNY) and --rate USD/CNY=7.2 both give the rate"},
		{"the config and an inverse flag", fx, []string{"CNY/USD=0.14"},
			"the config's fx: {USD: 7.1} (currency: CNY) and --rate CNY/USD=0.14 both give the rate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewOptions("CNY", c.fx, c.rates)
			if err == nil || !IsRefusal(err) {
				t.Fatalf("err %v: want a refusal", err)
			}
			containsAll(t, "error", err.Error(), c.want, "give one rate per pair of currencies")
		})
	}
	opt, err := NewOptions("CNY", fx, []string{"USD/CNY=7.10", "EUR/CNY=7.7"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range opt.Rates {
		got = append(got, r.String())
	}
	if strings.Join(got, " ") != "USD/CNY=7.1 EUR/CNY=7.7" {
		t.Errorf("the config's rate repeated by a flag: rates %q, want it once", got)
	}
	// The config's fx out of bounds is refused at the same check.
	if _, err := NewOptions("CNY", map[string]decimal.Decimal{"USD": decimal.RequireFromString("1e400")}, nil); err == nil ||
		!strings.Contains(err.Error(), "the config's fx: {USD: ") {
		t.Errorf("fx of 1e400: %v, want a refusal naming it", err)
	}
}
