package ingest

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// TestDecSumIsAdd: decSum's value is what decimal.Add gives adding the same
// decimals to zero in order — the same value and exponent — over generated
// sequences of coefficients from 0 to past int64 (so that sums and scaled
// addends overflow) and exponents from -25 to 5, each sequence summed
// independently in exact rationals too.
func TestDecSumIsAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 7))
	overflowed := 0
	for n := range 3000 {
		var s decSum
		want := decimal.Zero
		exact := new(big.Rat)
		for range r.IntN(40) {
			var c *big.Int
			switch r.IntN(4) {
			case 0:
				c = big.NewInt(r.Int64N(1000) - 500)
			case 1:
				c = big.NewInt(r.Int64())
			default: // up to 25 digits
				digits := make([]byte, 1+r.IntN(25))
				for i := range digits {
					digits[i] = byte('0' + r.IntN(10))
				}
				c, _ = new(big.Int).SetString(string(digits), 10)
			}
			if r.IntN(2) == 0 {
				c.Neg(c)
			}
			d := decimal.NewFromBigInt(c, int32(r.IntN(31)-25))
			s.add(d)
			want = want.Add(d)
			exact.Add(exact, d.Rat())
		}
		got := s.value()
		if !got.Equal(want) || got.Exponent() != want.Exponent() || got.Rat().Cmp(exact) != 0 {
			t.Fatalf("sequence %d: decSum %s (exponent %d), Add %s (exponent %d), exact %s", n, got, got.Exponent(), want, want.Exponent(), exact.FloatString(25))
		}
		if !s.rest.IsZero() {
			overflowed++
		}
	}
	if overflowed < 300 {
		t.Errorf("only %d sequences went past an int64: the test does not reach the fallback", overflowed)
	}
}
