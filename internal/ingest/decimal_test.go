package ingest

import (
	"math/big"
	"math/rand/v2"
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

// TestCheckAmountBound: checkAmount refuses exactly the amounts beyond 1e15
// in absolute value. Generated decimals of 1 to 30 digits at exponents -20
// to +20, both signs, the bound and its neighbours among them; the
// expectation is a comparison of exact rationals (math/big.Rat), not
// decimal's. It fails when the digit count shortcut lets a value past the
// bound, or refuses one within it.
func TestCheckAmountBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 11))
	bound := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(15), nil))
	var cases []decimal.Decimal
	for _, s := range []string{"1e15", "-1e15", "1000000000000000", "1000000000000000.000001", "999999999999999.99999",
		"-1000000000000000.01", "0", "0e30", "1e16", "10e14", "100e13", "0.1e16", "9999999999999999e-1"} {
		cases = append(cases, decimal.RequireFromString(s))
	}
	for range 20000 {
		digits := make([]byte, 1+rng.IntN(30))
		for i := range digits {
			digits[i] = byte('0' + rng.IntN(10))
		}
		if rng.IntN(3) == 0 {
			digits[0] = '1'
			for i := 1; i < len(digits); i++ {
				digits[i] = "09"[rng.IntN(2)]
			}
		}
		coef, _ := new(big.Int).SetString(string(digits), 10)
		if rng.IntN(2) == 0 {
			coef.Neg(coef)
		}
		cases = append(cases, decimal.NewFromBigInt(coef, int32(rng.IntN(41)-20)))
	}
	for _, d := range cases {
		r := new(big.Rat).SetInt(d.Coefficient())
		scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs32(d.Exponent()))), nil))
		if d.Exponent() >= 0 {
			r.Mul(r, scale)
		} else {
			r.Quo(r, scale)
		}
		want := r.Abs(r).Cmp(bound) <= 0
		if got := checkAmount(d) == nil; got != want {
			t.Errorf("checkAmount(%s) accepts: %v, want %v", d.String(), got, want)
		}
	}
}

func abs32(e int32) int32 {
	if e < 0 {
		return -e
	}
	return e
}
