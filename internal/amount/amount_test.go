package amount

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		code string
		v    float64
		prec int
		want string
	}{
		{"CNY", 12345.674, 2, "¥12,345.67"},
		{"rmb", 1, 2, "¥1.00"},
		{"USD", -3.5, 2, "-$3.50"},
		{"EUR", 999.995, 2, "€1,000.00"}, // rounds up across a separator
		{"GBP", 1200, 2, "£1,200.00"},
		{"JPY", 1500, 0, "JP¥1,500"},
		{"CHF", 1200, 2, "1,200.00 CHF"},
		{"chf<script>", 1, 2, "1.00 CHFSCRIP"}, // letters only, at most 8
		{"", 1234567.891, 1, "1,234,567.9"},
		{"USD", -0.001, 2, "$0.00"}, // rounds to zero: no sign
		{"USD", 0.00012, 4, "$0.0001"},
		{"USD", math.NaN(), 2, "$n/a"},
		{"", 999999.999, 2, "1,000,000.00"},
		{"EUR", 0, 2, "€0.00"},
	} {
		if got := Format(tt.code, tt.v, tt.prec); got != tt.want {
			t.Errorf("Format(%q, %v, %d) = %q, want %q", tt.code, tt.v, tt.prec, got, tt.want)
		}
	}
}

func TestRounded(t *testing.T) {
	for _, tt := range []struct {
		code string
		v    float64
		want string
	}{
		{"CNY", 3812.4, "¥3,812"},
		{"CNY", 3812.5, "¥3,813"},
		{"USD", 12.4, "$12.40"},
		{"CHF", -150.2, "-150 CHF"},
		{"USD", 99.999, "$100.00"}, // below 100 before rounding: two decimals
	} {
		if got := Rounded(tt.code, tt.v); got != tt.want {
			t.Errorf("Rounded(%q, %v) = %q, want %q", tt.code, tt.v, got, tt.want)
		}
	}
}

func TestExcelFormat(t *testing.T) {
	for _, tt := range []struct {
		code string
		dec  int
		want string
	}{
		{"CNY", 2, `"¥"#,##0.00`},
		{"USD", 4, `"$"#,##0.0000`},
		{"CHF", 2, `#,##0.00 "CHF"`},
		{"", 0, `#,##0`},
		{`US"D`, 2, `#,##0.00 "USD"`}, // a quote cannot break out of the format
	} {
		if got := ExcelFormat(tt.code, tt.dec); got != tt.want {
			t.Errorf("ExcelFormat(%q, %d) = %q, want %q", tt.code, tt.dec, got, tt.want)
		}
	}
}

func TestRoundMinor(t *testing.T) {
	// Expectations by hand from ISO 4217's minor units.
	for _, tt := range []struct {
		code string
		v    float64
		want float64
	}{
		{"USD", 13999.999999991009, 14000},
		{"CNY", 0.1 + 0.2, 0.3},
		{"cny", 12.345001, 12.35},
		{"JPY", 1234.5, 1235},
		{"KWD", 1.23456, 1.235},
		{"", 2.005001, 2.01},
		{"USD", -0.004, 0},
	} {
		got := RoundMinor(tt.code, tt.v)
		if got != tt.want || math.Signbit(got) {
			t.Errorf("RoundMinor(%q, %v) = %v, want %v", tt.code, tt.v, got, tt.want)
		}
	}
}
