package report

import (
	"strings"
	"testing"
)

func TestChartText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"gpu-1", "gpu-1"},
		{"__f__function(){}__f__", "_f_function(){}_f_"},
		{"___f___", "_f_"}, // one replacement would create a new marker
		{"x\x1by", "x\uFFFDy"},
	}
	for _, tt := range tests {
		got := chartText(tt.in)
		if got != tt.want || strings.Contains(got, "__f__") {
			t.Errorf("chartText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMoneyFormatting(t *testing.T) {
	tests := []struct {
		cur  string
		v    float64
		want string
	}{
		{"CNY", 12345.678, "¥12,345.68"},
		{"USD", -3.5, "-$3.50"},
		{"EUR", 0, "€0.00"},
		{"GBP", 1200, "1,200.00 GBP"},
		{"", 999999.999, "1,000,000.00"},
		{"CNY", -0.001, "¥0.00"}, // no "-0.00"
	}
	for _, tt := range tests {
		if got := money(tt.cur, tt.v); got != tt.want {
			t.Errorf("money(%q, %v) = %q, want %q", tt.cur, tt.v, got, tt.want)
		}
	}
	if got := moneyFormat(`US"D`, 2); got != `#,##0.00 "USD"` {
		t.Errorf("moneyFormat with a quote = %q", got)
	}
}
