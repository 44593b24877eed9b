package ingest

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestParseDecimal(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0.00000080000", "0.0000008"}, {"-2.6137", "-2.6137"}, {"1.5E-7", "0.00000015"}, {"1.2e+1", "12"},
		{"+3", "3"}, {".5", "0.5"}, {"5.", "5"}, {"123456789012345.123456789012345", "123456789012345.123456789012345"},
	}
	for _, c := range cases {
		got, err := parseDecimal(c.in)
		if err != nil || !got.Equal(decimal.RequireFromString(c.want)) {
			t.Errorf("parseDecimal(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "NaN", "nan", "Inf", "-Infinity", "1e999999999", "1e41", "1,5", "1.2.3",
		"e5", "1e", "--1", "1-", "0x10", "1 2", "１２"} {
		if got, err := parseDecimal(bad); err == nil {
			t.Errorf("parseDecimal(%q) = %s, want an error", bad, got)
		}
	}
}

func TestParseMeasure(t *testing.T) {
	for in, want := range map[string]float64{"100 %": 100, "19818 MiB": 19818, "631.95 W": 631.95, "7": 7, "55%": 55} {
		if got, err := parseMeasure(in); err != nil || got != want {
			t.Errorf("parseMeasure(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "NaN W", "Inf", "fast", "[N/A]"} {
		if _, err := parseMeasure(bad); err == nil {
			t.Errorf("parseMeasure(%q) succeeded", bad)
		}
	}
}
