package ingest

import (
	"fmt"
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

// TestTinyCostRefusedForItsReason: issue 32's leftover — a cost of 5e-324
// (the smallest float64, printed as text) is refused saying it has more
// precision than finops stores, not that it is no decimal number; every
// reader whose money cells we drive says the same.
func TestTinyCostRefusedForItsReason(t *testing.T) {
	for _, c := range []struct{ file, column string }{
		{"focus_sample.csv", "BilledCost"},
		{"aws/test_cur.csv", "lineItem/UnblendedCost"},
		{"gcp/2022-08-01_5.csv", "cost"},
		{"autodl_sample.csv", "应付金额"},
	} {
		in := firstRow(t, c.file, func(hdr, row []string) ([]string, []string) {
			row[index(t, hdr, c.column)] = "5e-324"
			return hdr, row
		})
		_, _, err := parseString(in, "tiny.csv")
		wantErrParts(t, err, "tiny.csv:2", fmt.Sprintf("field %q", c.column), `"5e-324" has more precision than finops stores`)
		if err != nil && strings.Contains(err.Error(), "expected a") {
			t.Errorf("%s: still the misleading reason: %v", c.file, err)
		}
	}
}

// TestParseDecimalRangeGenerated: random decimals in scientific notation,
// their exponents from far below to far above what finops stores: read
// exactly (compared with math/big's reading of the same text) when the
// value's last digit is at most 120 places after the point and the number
// is at most 1e40 in size (judged here from the digits and exponent written),
// else refused with the reason that fits, never "not a number".
func TestParseDecimalRangeGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(5324))
	for n := 0; n < 20000; n++ {
		mant := fmt.Sprint(1 + rng.Intn(999)) // no trailing zero matters: 1..999
		for mant[len(mant)-1] == '0' {
			mant = fmt.Sprint(1 + rng.Intn(999))
		}
		exp := rng.Intn(400) - 340
		s := fmt.Sprintf("%se%d", mant, exp)
		if rng.Intn(2) == 0 {
			s = "-" + s
		}
		// The value is mant × 10^exp: its last digit sits at 10^exp, and
		// the value has exponent exp (mant has no trailing zero).
		d, err := parseDecimal(s)
		switch {
		case exp < -120:
			if re, ok := err.(*rangeError); !ok || !re.small {
				t.Fatalf("parseDecimal(%s) = %v, %v; want the precision refusal", s, d, err)
			}
		case exp > 40:
			if re, ok := err.(*rangeError); !ok || re.small {
				t.Fatalf("parseDecimal(%s) = %v, %v; want the size refusal", s, d, err)
			}
		default:
			want, ok := new(big.Rat).SetString(s)
			if err != nil || !ok || d.Rat().Cmp(want) != 0 {
				t.Fatalf("parseDecimal(%s) = %v, %v; want %v", s, d, err, want)
			}
		}
	}
	for _, zero := range []string{"0e-999", "0.000e-400", "-0e50"} {
		if d, err := parseDecimal(zero); err != nil || !d.IsZero() {
			t.Errorf("parseDecimal(%s) = %v, %v; want 0", zero, d, err)
		}
	}
}
