// Package amount writes amounts of money for people: the currency's symbol in
// front where it has a common one, else its code after the number; thousands
// separators; rounding for display (the JSON rounds only to the minor unit). The
// workbook, HTML page, email, terminal, planner and the sentences of the
// analysis all write money through it, so they agree.
package amount

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Symbol is the symbol written before amounts in code, or "" when the code
// is written after them instead. JPY is JP¥ so that it never reads as CNY.
func Symbol(code string) string {
	switch strings.ToUpper(code) {
	case "CNY", "RMB":
		return "¥"
	case "USD":
		return "$"
	case "EUR":
		return "€"
	case "GBP":
		return "£"
	case "JPY":
		return "JP¥"
	}
	return ""
}

// Code is the currency code reduced to at most 8 ASCII capitals, safe in an
// Excel number format, a chart axis or a file.
func Code(code string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(code) {
		if r >= 'A' && r <= 'Z' && b.Len() < 8 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Group writes |v| with prec decimals and comma thousands separators; "n/a"
// for NaN and infinities.
func Group(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', prec, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// Format writes v with prec decimals in the currency: "¥12,345.67",
// "-$3.50", "1,200.00 CHF", or the bare number without a currency. A
// negative amount that rounds to zero has no sign.
func Format(code string, v float64, prec int) string {
	sign := ""
	if v < 0 && math.Round(-v*math.Pow10(prec)) != 0 {
		sign = "-"
	}
	num := Group(v, prec)
	if sym := Symbol(code); sym != "" {
		return sign + sym + num
	}
	if c := Code(code); c != "" {
		return sign + num + " " + c
	}
	return sign + num
}

// Rounded writes an amount for a sentence: whole units from 100 up ("¥3,812"),
// two decimals below ("12.40 CHF").
func Rounded(code string, v float64) string {
	if math.Abs(v) >= 100 {
		return Format(code, math.Round(v), 0)
	}
	return Format(code, v, 2)
}

// ExcelFormat is the Excel number format of amounts in the currency with the
// given decimals: the symbol in front, else the code after the number.
func ExcelFormat(code string, decimals int) string {
	num := "#,##0"
	if decimals > 0 {
		num += "." + strings.Repeat("0", decimals)
	}
	if sym := Symbol(code); sym != "" {
		return `"` + sym + `"` + num
	}
	if c := Code(code); c != "" {
		return num + ` "` + c + `"`
	}
	return num
}

// MinorDigits is the number of decimals of the currency's minor unit (ISO
// 4217): 0 for JPY or KRW, 3 for the dinars, 2 for the rest and for an unknown
// or empty code. The JSON summary rounds money to it.
func MinorDigits(code string) int {
	switch strings.ToUpper(strings.TrimSpace(code)) {
	case "JPY", "KRW", "VND", "CLP", "ISK", "PYG", "UGX", "XAF", "XOF", "XPF", "KMF", "RWF", "GNF", "DJF", "VUV", "BIF":
		return 0
	case "BHD", "KWD", "OMR", "JOD", "TND", "IQD", "LYD":
		return 3
	}
	return 2
}

// RoundMinor rounds v to the currency's minor unit: 13999.999999991009 USD
// becomes 14000, 12.345 JPY becomes 12. A result of -0 is written as 0.
func RoundMinor(code string, v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow10(MinorDigits(code))
	r := math.Round(v*p) / p
	if r == 0 {
		return 0
	}
	return r
}

// RoundToTotal rounds amounts (in minor units, possibly fractional and
// negative) to whole minor units that add up to total exactly, by largest
// remainder (Hamilton's method): each amount is floored, then the minor
// units still missing go one each to the amounts with the largest
// fractional parts (ties: the earlier amount). When the amounts add up to
// more than total (float sums can drift by a fraction of a cent), the
// amounts with the smallest fractional parts give one back each. A
// difference larger than the number of amounts goes round again.
func RoundToTotal(total int64, amounts []float64) []int64 {
	out := make([]int64, len(amounts))
	if len(amounts) == 0 {
		return out
	}
	frac := make([]float64, len(amounts))
	var sum int64
	for i, v := range amounts {
		f := math.Floor(v)
		out[i], frac[i] = int64(f), v-f
		sum += out[i]
	}
	order := make([]int, len(amounts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return frac[order[i]] > frac[order[j]] })
	left := total - sum
	for k := 0; left > 0; k++ {
		out[order[k%len(order)]]++
		left--
	}
	for k := 0; left < 0; k++ {
		out[order[len(order)-1-k%len(order)]]--
		left++
	}
	return out
}
