package ingest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Bounds on decimals read from files. Real exports use up to 15 fractional
// digits; the bounds keep a hostile "1e999999999" from turning every later
// sum into a billion-digit big.Int.
const (
	maxDecimalLen      = 80
	maxDecimalExponent = 40
)

var errNotNumber = errors.New("not a number")

// parseDecimal reads an exact decimal: plain, signed or in scientific
// notation ("1.5E-7", which GCP exports use). NaN and Inf are refused.
func parseDecimal(s string) (decimal.Decimal, error) {
	if s == "" || len(s) > maxDecimalLen {
		return decimal.Decimal{}, errNotNumber
	}
	digits, dots, exp := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if !exp {
				digits++
			}
		case c == '.':
			if exp {
				return decimal.Decimal{}, errNotNumber
			}
			dots++
		case c == 'e' || c == 'E':
			if exp || digits == 0 {
				return decimal.Decimal{}, errNotNumber
			}
			exp = true
		case c == '+' || c == '-':
			if i != 0 && s[i-1] != 'e' && s[i-1] != 'E' {
				return decimal.Decimal{}, errNotNumber
			}
		default:
			return decimal.Decimal{}, errNotNumber
		}
	}
	if digits == 0 || dots > 1 {
		return decimal.Decimal{}, errNotNumber
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, errNotNumber
	}
	// A number is read at most to 1e-120 and at most 1e40: the reason is
	// said (rangeError), for "5e-324" — the smallest float64, printed by an
	// exporter as text — is a decimal number, and "expected a decimal
	// number" would be no reason to refuse it.
	if d.IsZero() {
		return decimal.Decimal{}, nil // 0e-999: zero however it is written
	}
	if e := d.Exponent(); e < -maxDecimalExponent-maxDecimalLen {
		return decimal.Decimal{}, &rangeError{small: true}
	} else if e > maxDecimalExponent {
		return decimal.Decimal{}, &rangeError{}
	}
	return d, nil
}

// rangeError is a decimal number parseDecimal does not store: finer than
// 1e-120 (more decimal places than any amount or quantity has; money's
// smallest unit is 0.01 or 0.001, and a bill's unit prices go to 1e-10),
// or larger than 1e40.
type rangeError struct{ small bool }

func (e *rangeError) Error() string {
	if e.small {
		return fmt.Sprintf("has more precision than finops stores (at most %d decimal places; "+
			"no currency's smallest unit or unit price comes near, and 5e-324 is the smallest float64, "+
			"a float printed as text): round it in the export, or write 0 if it is none", maxDecimalExponent+maxDecimalLen)
	}
	return fmt.Sprintf("is larger than finops reads (at most 1e%d; no real charge or quantity comes near): "+
		"is the cell mangled or a column shifted?", maxDecimalExponent)
}

// withRange gives perr, the refusal of the number cell value that a
// reader's parseDecimal or parseAmount refused with err, the reason of a
// rangeError ("the number 5e-324 has more precision than finops stores …")
// in place of its "expected a decimal number".
func withRange(perr *ParseError, err error, value string) *ParseError {
	var re *rangeError
	if perr != nil && errors.As(err, &re) {
		perr.Msg = "the number " + found(value) + " " + re.Error()
	}
	return perr
}

// maxAmount is the largest amount of money, in absolute value, that a bill
// line may hold: no real charge comes near it, and past it the float64 of a
// report cannot print it exactly, so a 30-digit cost is a mangled cell.
// Both bounds are built once: checkAmount runs for every money cell, and
// comparing against them needs no Abs copy of the cell's value.
var (
	maxAmount = decimal.New(1, 15)
	minAmount = decimal.New(-1, 15)
)

// implausibleAmount is what a money cell beyond maxAmount is told.
const implausibleAmount = "an amount of at most 1e15 in absolute value (no real charge is larger: is the cell mangled or a column shifted?)"

// checkAmount refuses an amount of money beyond maxAmount. Every reader's
// money cells pass through it: costs, list costs, credits, commitment fees.
func checkAmount(d decimal.Decimal) error {
	// A value of n digits times 10^e is below 10^(n+e) in absolute value:
	// at n+e <= 15 it is within the bounds without a comparison, which
	// scales one side to the other's exponent with a big.Int product (5 %
	// of a FOCUS parse, where every line has four amounts).
	if d.NumDigits()+int(d.Exponent()) <= 15 {
		return nil
	}
	if d.GreaterThan(maxAmount) || d.LessThan(minAmount) {
		return errImplausible
	}
	return nil
}

var errImplausible = errors.New("implausible amount")

// parseAmount reads a money cell as rental platforms print it: an optional
// currency sign or code, thousands separators, a minus or parentheses for
// refunds ("¥1,234.50", "$12.00", "-¥3.00", "(3.00)", "12.5 元").
func parseAmount(s string) (decimal.Decimal, error) {
	s = strings.TrimSpace(s)
	signs := 0 // a minus before or after the currency sign, or parentheses; one at most
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		signs, s = signs+1, strings.TrimSpace(s[1:len(s)-1])
	}
	if strings.HasPrefix(s, "-") {
		signs, s = signs+1, strings.TrimSpace(s[1:])
	}
	s = trimCurrency(s)
	if strings.HasPrefix(s, "-") {
		signs, s = signs+1, strings.TrimSpace(s[1:])
	}
	if signs > 1 {
		return decimal.Decimal{}, errNotNumber
	}
	if strings.ContainsRune(s, ',') {
		var ok bool
		if s, ok = stripThousands(s); !ok {
			return decimal.Decimal{}, errNotNumber
		}
	}
	if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		return decimal.Decimal{}, errNotNumber
	}
	d, err := parseDecimal(s)
	if err != nil {
		return d, err
	}
	if signs == 1 {
		d = d.Neg()
	}
	return d, nil
}

func trimCurrency(s string) string {
	for changed := true; changed; {
		changed = false
		for _, sym := range []string{"¥", "￥", "$", "€", "£", "元", "CNY", "RMB", "USD", "EUR", "US$"} {
			if t, ok := strings.CutPrefix(s, sym); ok {
				s, changed = strings.TrimSpace(t), true
			}
			if t, ok := strings.CutSuffix(s, sym); ok {
				s, changed = strings.TrimSpace(t), true
			}
		}
	}
	return s
}

// stripThousands removes "," group separators, but only where they really
// group thousands: "1,5" is a decimal comma and must not silently become 15.
func stripThousands(s string) (string, bool) {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	groups := strings.Split(intPart, ",")
	if len(groups[0]) < 1 || len(groups[0]) > 3 {
		return "", false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return "", false
		}
	}
	out := strings.Join(groups, "")
	if hasFrac {
		out += "." + frac
	}
	return out, true
}

// parseMeasure reads an nvidia-smi number with or without its unit
// ("631.95 W", "19818 MiB", "100 %", "100").
func parseMeasure(s string) (float64, error) {
	f, err := parseUtil(s)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errNotNumber
	}
	return f, nil
}

// parseUtil is parseMeasure that lets NaN and infinities through, for
// finops.ValidUtil to count them as dropped samples.
func parseUtil(s string) (float64, error) {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, "%")
	if f, ok := smallInt(s); ok {
		return f, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, errNotNumber
	}
	return f, nil // out of range: ±Inf
}

// smallInt reads s when it is only digits, up to nine of them: an
// nvidia-smi utilization or memory size, which ParseFloat reads to the
// same (exact) float64 several times slower.
func smallInt(s string) (float64, bool) {
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return float64(n), true
}
