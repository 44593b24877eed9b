package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/finops-oss/finops/internal/amount"
)

// Number formatting for the "how we got this" strings, the table and the
// explanation. The JSON keeps full precision; these are for people.

// num writes a count or quantity readably: whole numbers with thousands
// separators (6,738,415,616), others with up to four significant digits
// after the point, very large ones in scientific notation (4.57e18).
func num(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case math.Abs(v) >= 1e15:
		return strconv.FormatFloat(v, 'g', 4, 64)
	case v == math.Trunc(v):
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	case math.Abs(v) >= 100:
		return group(strconv.FormatFloat(v, 'f', 2, 64))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// fixed writes v with prec decimals and thousands separators.
func fixed(v float64, prec int) string {
	return group(strconv.FormatFloat(v, 'f', prec, 64))
}

// group inserts thousands separators into a formatted decimal number.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String() + frac
}

// gbText writes bytes as decimal gigabytes with two decimals.
func gbText(bytes float64) string { return fixed(bytes/gb, 2) + " GB" }

// hoursText writes a number of hours readably.
func hoursText(h float64) string {
	if h >= 100 {
		return fixed(h, 0)
	}
	return fixed(h, 2)
}

// money writes an amount with two decimals and the currency: ¥39,000.00,
// $1.20, 1,500.00 CHF (amount.Format).
func money(cur string, v float64) string { return amount.Format(cur, v, 2) }

// roundCents rounds money to the cent: an estimate is not more precise than
// that, and it keeps 2 × 10,000 × 1.5 × 1.3 at exactly 39,000 instead of
// 39,000.000000000004.
func roundCents(v float64) float64 { return math.Round(v*100) / 100 }

// cardsText is "1 card" or "n cards".
func cardsText(n int) string {
	if n == 1 {
		return "1 card"
	}
	return fmt.Sprintf("%d cards", n)
}
