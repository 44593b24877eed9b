package report

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
)

// TestExchangeRatesShown: the rates a report's amounts were converted at are
// in every output a reader checks them in (issue #27: the rate appeared
// nowhere). The hand week is in CNY with lines in USD at 7.1 and in EUR at
// 7.85, as the config's fx gives them.
func TestExchangeRatesShown(t *testing.T) {
	r := handResult(t)
	r.DataQuality.ExchangeRates = []analysis.ExchangeRate{{Currency: "EUR", Rate: 7.85}, {Currency: "USD", Rate: 7.1}}

	var html strings.Builder
	if err := writeHTML(&html, r, Meta{}, nil); err != nil {
		t.Fatal(err)
	}
	_, quality, _ := strings.Cut(html.String(), `id="h-quality"`)
	_, f := writeBook(t, r)
	summary, err := f.GetRows(sheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	m, raw := decodeJSON(t, r)
	if err := validateJSON(reportSchema(t), raw); err != nil {
		t.Errorf("JSON with exchange rates does not match the schema: %v", err)
	}
	dq, _ := m["data_quality"].(map[string]any)
	rates, _ := dq["exchange_rates"].([]any)
	if len(rates) != 2 {
		t.Fatalf("JSON data_quality.exchange_rates = %v, want EUR and USD", dq["exchange_rates"])
	}
	for i, tc := range []struct {
		currency, html, label, cell string
		rate                        float64
	}{
		{"EUR", "1 EUR = 7.85 CNY", "Exchange rate: CNY per EUR", "7.85", 7.85},
		{"USD", "1 USD = 7.1 CNY", "Exchange rate: CNY per USD", "7.1", 7.1},
	} {
		if !strings.Contains(quality, tc.html) {
			t.Errorf("the HTML's data-quality box lacks %q", tc.html)
		}
		found := false
		for _, row := range summary {
			if len(row) >= 2 && row[0] == tc.label {
				found = true
				if row[1] != tc.cell {
					t.Errorf("Summary %q = %q, want %s", tc.label, row[1], tc.cell)
				}
			}
		}
		if !found {
			t.Errorf("the workbook's Summary has no row %q", tc.label)
		}
		if x, _ := rates[i].(map[string]any); x["currency"] != tc.currency || x["rate"] != tc.rate {
			t.Errorf("JSON exchange rate %d = %v, want %s %v", i, rates[i], tc.currency, tc.rate)
		}
	}
}
