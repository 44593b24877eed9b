package analysis

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestCheckCurrencies: lines in a currency with no rate to the reporting
// one, mixed currencies without a reporting one, and lines without a
// currency are refused, naming the currency and its files; one currency,
// or rates for every other, pass.
func TestCheckCurrencies(t *testing.T) {
	many := []string{"a.csv", "b.csv", "c.csv", "d.csv", "e.csv", "f.csv", "g.csv"}
	for _, tc := range []struct {
		name  string
		byCur map[string][]string
		p     Params
		want  string // "" for no error; else a part of the message
	}{
		{"one currency, none configured", map[string][]string{"USD": {"a.csv"}}, Params{}, ""},
		{"rates for the others", map[string][]string{"USD": {"a.csv"}, "CNY": {"b.csv"}}, Params{Currency: "usd", FX: map[string]decimal.Decimal{"CNY": decimal.RequireFromString("0.14")}}, ""},
		{"mixed, no reporting currency", map[string][]string{"USD": {"a.csv"}, "CNY": {"b.csv"}}, Params{}, "in 2 currencies (CNY, USD)"},
		{"no rate", map[string][]string{"USD": {"a.csv"}, "CNY": {"b.csv"}}, Params{Currency: "USD"}, "no exchange rate from CNY to USD for the lines in b.csv"},
		{"no currency", map[string][]string{"": {"old.csv"}, "USD": {"a.csv"}}, Params{}, "without a currency in old.csv"},
		// Seven files: the first five named, then "and 2 more files".
		{"many files", map[string][]string{"": many}, Params{}, "a.csv, b.csv, c.csv, d.csv, e.csv and 2 more files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCurrencies(tc.byCur, tc.p)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("err %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err %v, want one saying %q", err, tc.want)
			case tc.want != "" && !strings.HasPrefix(err.Error(), "analysis: "):
				t.Errorf("err %q: want the package prefix analysis:", err)
			}
		})
	}
}
