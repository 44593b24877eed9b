package ingest

import (
	"math"

	"github.com/shopspring/decimal"
)

// decSum adds decimals exactly, as decimal.Decimal.Add does from zero — the
// same value at the same exponent, the smallest of zero's and the addends'
// — but in an int64 coefficient while the sum and the addends fit one:
// a file's total through Add allocated two big.Ints a line and was a
// twentieth of a FOCUS parse (issue #35). What does not fit goes to a
// decimal, added in at the end.
type decSum struct {
	coef int64
	exp  int32
	rest decimal.Decimal // what did not fit
}

// pow10 are the powers of ten an int64 holds.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// scaledInt is c·10^k, and whether it fits an int64.
func scaledInt(c int64, k int32) (int64, bool) {
	if k == 0 || c == 0 {
		return c, true
	}
	if k < 0 || k >= int32(len(pow10)) {
		return 0, false
	}
	p := pow10[k]
	if c > math.MaxInt64/p || c < math.MinInt64/p {
		return 0, false
	}
	return c * p, true
}

func (s *decSum) add(d decimal.Decimal) {
	if d.NumDigits() > 18 {
		s.rest = s.rest.Add(d)
		return
	}
	c, e := d.CoefficientInt64(), d.Exponent()
	if e < s.exp { // the sum goes down to e
		sc, ok := scaledInt(s.coef, s.exp-e)
		if !ok {
			s.rest = s.rest.Add(decimal.New(s.coef, s.exp))
			sc = 0
		}
		s.coef, s.exp = sc, e
	}
	c, ok := scaledInt(c, e-s.exp)
	if ok {
		sum := s.coef + c
		if (c >= 0) == (sum >= s.coef) { // no overflow
			s.coef = sum
			return
		}
	}
	s.rest = s.rest.Add(d)
}

// value is the sum: Add of every addend to decimal.Zero, in order.
func (s *decSum) value() decimal.Decimal {
	return s.rest.Add(decimal.New(s.coef, s.exp))
}
