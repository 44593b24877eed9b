package store

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/shopspring/decimal"
)

// TestDecStringGenerated: decString(d) == d.String() for every decimal,
// over seeded random coefficients (small, 18-digit, beyond int64) and
// exponents on both sides of the fast path's bounds; the expectation is
// shopspring's own big.Int formatting, an independent method.
func TestDecStringGenerated(t *testing.T) {
	named := []decimal.Decimal{
		decimal.Zero, decimal.New(0, -5), decimal.New(-5, -2), decimal.New(123, -2), decimal.New(1200, -2),
		decimal.New(-1, -18), decimal.New(999999999999999999, -18), decimal.New(1000000000000000000, -18),
		decimal.New(math.MaxInt64, -3), decimal.New(math.MinInt64, -3), decimal.New(7, 3), decimal.New(-7, -19),
		decimal.RequireFromString("3046.750000"), decimal.RequireFromString("-0.000000001"),
	}
	for _, d := range named {
		if got, want := decString(d), d.String(); got != want {
			t.Errorf("decString(%s e%d) = %q, want %q", d.Coefficient(), d.Exponent(), got, want)
		}
	}
	rng := rand.New(rand.NewSource(35))
	for i := 0; i < 200000; i++ {
		var c *big.Int
		switch rng.Intn(4) {
		case 0: // small amounts, often with trailing zeros
			c = big.NewInt(rng.Int63n(100000) * []int64{1, 10, 1000}[rng.Intn(3)])
		case 1: // up to 18 digits
			c = big.NewInt(rng.Int63n(1_000_000_000_000_000_000))
		case 2: // anywhere in int64
			c = big.NewInt(rng.Int63())
		default: // beyond int64
			c = new(big.Int).Mul(big.NewInt(rng.Int63()), big.NewInt(rng.Int63n(1000)+2))
		}
		if rng.Intn(2) == 0 {
			c.Neg(c)
		}
		d := decimal.NewFromBigInt(c, int32(rng.Intn(30)-25))
		if got, want := decString(d), d.String(); got != want {
			t.Fatalf("case %d: decString(%s e%d) = %q, want %q", i, c, d.Exponent(), got, want)
		}
	}
}
