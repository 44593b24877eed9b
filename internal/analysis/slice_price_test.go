package analysis

import (
	"math"
	"testing"

	"github.com/finops-oss/finops"
)

// TestSliceRentalPrice: the review's hourly price of a slice is its own
// catalog price, else its bill's rate (a price per slice), and only then its
// card's cheapest price × its memory fraction, said to be an estimate. On
// main a card's price never reached a slice, or reached it whole.
func TestSliceRentalPrice(t *testing.T) {
	conv := reviewConverter{currency: "USD"}
	catalog := []Price{
		{Provider: "P", GPUModel: "A100-40GB", Mode: finops.ModeHourly, Price: 4, Currency: "USD"},
		{Provider: "Q", GPUModel: "A100-SXM4-40GB", Mode: finops.ModeHourly, Price: 3.2, Currency: "USD"},
		{Provider: "R", GPUModel: "A100-80GB", Mode: finops.ModeHourly, Price: 1, Currency: "USD"},
	}
	tests := []struct {
		name    string
		o       observed
		catalog []Price
		hourly  float64
		source  string
	}{
		// Q's 3.20 is the cheapest A100-40GB; × 10/40 = 0.80.
		{"estimate", observed{model: "A100-10C"}, catalog, 0.8, "estimated from the A100-40GB price × 10/40 (catalog: Q)"},
		// The slice's own row wins: 0.95.
		{"own price", observed{model: "A100-10C"},
			append([]Price{{Provider: "S", GPUModel: "GRID A100-10C", Mode: finops.ModeHourly, Price: 0.95, Currency: "USD"}}, catalog...),
			0.95, "catalog: S"},
		// Billed per slice: 12 over 20 hours = 0.60.
		{"observed", observed{model: "A100-10C", byMode: map[string][2]float64{finops.ModeHourly: {12, 20}}}, catalog, 0.6, "observed hourly rate"},
		// MIG on the A100-80GB: R's 1.00 × 10/80 = 0.125.
		{"mig", observed{model: "A100-80GB MIG 1g.10gb"}, catalog, 0.125, "estimated from the A100-80GB price × 10/80 (catalog: R)"},
		// A whole card never takes the estimate.
		{"card", observed{model: "H100"}, catalog, math.NaN(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w []string
			p := rentalPrices(&tt.o, tt.catalog, conv, false, &w)
			if !(math.IsNaN(tt.hourly) && math.IsNaN(p.hourly)) && math.Abs(p.hourly-tt.hourly) > 1e-12 || p.hourlySource != tt.source {
				t.Errorf("hourly %v (%q), want %v (%q)", p.hourly, p.hourlySource, tt.hourly, tt.source)
			}
		})
	}
}
