package store

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// decString is d.String() without math/big for the amounts bills hold: a
// coefficient of at most 18 digits and an exponent in [-18, 0]. Formatting
// every cost of a FOCUS line through big.Int's itoa was about a tenth of the
// parser goroutine's CPU (issue #35); anything else, or a process that
// changed the decimal package's formatting switches, goes to d.String().
func decString(d decimal.Decimal) string {
	e := d.Exponent()
	if e > 0 || e < -18 || !decimal.TrimTrailingZeros || decimal.UseScientificNotation || d.NumDigits() > 18 {
		return d.String()
	}
	c := d.CoefficientInt64() // exact: at most 18 digits fit an int64
	if e == 0 {
		return strconv.FormatInt(c, 10)
	}
	neg := c < 0
	u := uint64(c)
	if neg {
		u = -u
	}
	frac := int(-e)
	for frac > 0 && u%10 == 0 { // String trims the fraction's trailing zeros
		u /= 10
		frac--
	}
	var buf [48]byte
	i := len(buf)
	for k := 0; k < frac; k++ { // the fraction, zero-padded to frac digits
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
	}
	if frac > 0 {
		i--
		buf[i] = '.'
	}
	for { // the integer part, "0" when there is none
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
