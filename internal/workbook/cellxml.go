package workbook

// The XML of one cell as excelize's StreamWriter writes it (stream.go's
// writeCell, cell.go's setCellFloat, setCellTime and setInlineStr, lib.go's
// bstrMarshal, for excelize v2.11.1), appended to a buffer: what Rows
// renders. TestRowsMatchStreamWriter holds it to excelize's own output.

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// appendStyle appends the style attribute (none for 0) as writeCell does.
func appendStyle(b []byte, style int) []byte {
	if style == 0 {
		return b
	}
	b = append(b, ` s="`...)
	b = strconv.AppendInt(b, int64(style), 10)
	return append(b, '"')
}

// appendInt appends an int cell's type-less value and end.
func appendInt(b []byte, v int64) []byte {
	b = append(b, `><v>`...)
	b = strconv.AppendInt(b, v, 10)
	return append(b, `</v></c>`...)
}

// appendFloat appends a float cell's value and end, as setCellFloat: a NaN
// or an infinity is the text fmt.Sprint gives it; any other value has at
// most Excel's 15 significant digits (formatCellFloat).
func appendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return appendInlineStr(b, fmt.Sprint(v))
	}
	b = append(b, `><v>`...)
	b = appendCellFloat(b, v)
	return append(b, `</v></c>`...)
}

// appendCellFloat is excelize's formatCellFloat(v, -1, 64) appended to b:
// strconv's shortest 'f' form, its digits past the 15th significant one cut
// (after the point) or zeroed (before it).
func appendCellFloat(b []byte, v float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, v, 'f', -1, 64)
	if math.Abs(v) == math.MaxFloat64 {
		return b
	}
	const maxPrec = 15
	str := b[start:]
	decimal := -1
	for i, ch := range str {
		if ch == '.' {
			decimal = i
			break
		}
	}
	significant := 0
	for idx := range str {
		if str[idx] < '0' || str[idx] > '9' || significant == 0 && str[idx] == '0' {
			continue
		}
		significant++
		if significant <= maxPrec {
			continue
		}
		if decimal >= 0 && idx > decimal {
			cut := idx
			if cut > 0 && str[cut-1] == '.' {
				cut--
			}
			return b[:start+cut]
		}
		if decimal < 0 {
			decimal = len(str)
		}
		for ; idx < decimal; idx++ {
			str[idx] = '0'
		}
		return b[:start+decimal]
	}
	return b
}

// Excel's epochs, as excelize's date.go has them.
var (
	excelMinTime1900      = time.Date(1899, time.December, 31, 0, 0, 0, 0, time.UTC)
	excel1904Epoc         = time.Date(1904, time.January, 1, 0, 0, 0, 0, time.UTC)
	excelBuggyPeriodStart = time.Date(1900, time.March, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)
)

// appendTime appends a date cell's value and end as excelize's
// setCellTime: the wall clock of t's location as an Excel serial number, or,
// before Excel's first day, as RFC 3339 text.
func appendTime(b []byte, t time.Time, date1904 bool) []byte {
	_, offset := t.In(t.Location()).Zone()
	t = t.Add(time.Duration(offset) * time.Second)
	x := excelTime(t, date1904)
	if x > 0 {
		b = append(b, `><v>`...)
		b = strconv.AppendFloat(b, x, 'f', -1, 64)
		return append(b, `</v></c>`...)
	}
	// setCellDefault: the text as is, not escaped (RFC 3339 needs none).
	s := t.Format(time.RFC3339Nano)
	b = append(b, ` t="inlineStr"><is><t`...)
	b = append(b, preserveSpace(s)...)
	b = append(b, '>')
	b = append(b, s...)
	return append(b, `</t></is></c>`...)
}

// excelTime is excelize's timeToExcelTime.
func excelTime(t time.Time, date1904 bool) float64 {
	const (
		dayNanoseconds = 24 * time.Hour
		maxDuration    = 290 * 364 * dayNanoseconds
	)
	date := excelMinTime1900
	if date1904 {
		date = excel1904Epoc
	}
	if t.Before(date) {
		return 0
	}
	tt, diff, result := t, t.Sub(date), 0.0
	for diff >= maxDuration {
		result += float64(maxDuration / dayNanoseconds)
		tt = tt.Add(-maxDuration)
		diff = tt.Sub(date)
	}
	rem := diff % dayNanoseconds
	result += float64(diff-rem)/float64(dayNanoseconds) + float64(rem)/float64(dayNanoseconds)
	if !date1904 && t.After(excelBuggyPeriodStart) {
		result++
	}
	return result
}

// appendInlineStr appends a text cell's type, value and end as excelize's
// setInlineStr and writeCell: cut to Excel's 32,767 UTF-16 units, space
// preserved where it starts or ends with white space, XML-escaped
// (xml.EscapeText, newlines kept as they are) and with _xHHHH_ sequences
// escaped (bstrMarshal).
func appendInlineStr(b []byte, s string) []byte {
	if len(s) > excelize.TotalCellChars && countUTF16(s) > excelize.TotalCellChars {
		s = truncateUTF16(s, excelize.TotalCellChars)
	}
	b = append(b, ` t="inlineStr"><is><t`...)
	b = append(b, preserveSpace(s)...)
	b = append(b, '>')
	if s != "" && needsEscape(s) {
		start := len(b)
		b = appendEscaped(b, s)
		// bstrMarshal reads the escaped text: escaped again, from a copy,
		// only where it holds an _x.
		if bytes.Contains(b[start:], []byte("_x")) {
			esc := string(b[start:])
			b = appendBstr(b[:start], esc)
		}
	} else {
		b = appendBstr(b, s)
	}
	return append(b, `</t></is></c>`...)
}

// appendEscaped appends s as xml.EscapeText writes it, but with newlines as
// they are (excelize turns its &#xA; back into a newline): &, <, >, quotes,
// tab and CR as entities; invalid UTF-8 and characters XML does not allow
// as U+FFFD.
func appendEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			continue
		case '\r':
			esc = "&#xD;"
		default:
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		b = append(b, s[last:i-width]...)
		b = append(b, esc...)
		last = i
	}
	return append(b, s[last:]...)
}

// xmlChar is encoding/xml's isInCharacterRange: the characters XML 1.0
// allows.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// needsEscape reports whether xml.EscapeText could change s: any byte
// outside printable ASCII, or one of &<>"'.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e:
			return true
		case c == '&' || c == '<' || c == '>' || c == '"' || c == '\'':
			return true
		}
	}
	return false
}

// preserveSpace is the xml:space attribute of a text starting or ending
// with a tab, newline, carriage return or space.
func preserveSpace(s string) string {
	if s == "" {
		return ""
	}
	for _, c := range [...]byte{9, 10, 13, 32} {
		if s[0] == c || s[len(s)-1] == c {
			return ` xml:space="preserve"`
		}
	}
	return ""
}

func countUTF16(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

func truncateUTF16(s string, limit int) string {
	n := 0
	for i, r := range s {
		if n += utf16.RuneLen(r); n > limit {
			return s[:i]
		}
	}
	return s
}

// appendBstr appends s with excelize's bstrMarshal applied: each
// non-overlapping _xHHHH_ (H a hex digit), leftmost first, that stands for a
// valid character is escaped as _x005F_xHHHH_ (so a reader does not decode
// it); one for a surrogate is dropped; _x005F_ is doubled, or tripled
// before an xHHHH_ escape, as excelize does.
func appendBstr(b []byte, s string) []byte {
	if !strings.Contains(s, "_x") {
		return append(b, s...)
	}
	l, cursor := len(s), 0
	for i := 0; i+7 <= l; {
		if !isBstr(s[i : i+7]) {
			i++
			continue
		}
		m0, m1 := i, i+7
		i = m1
		b = append(b, s[cursor:m0]...)
		sub := s[m0:m1]
		if sub == "_x005F_" {
			cursor = m1
			if m1+6 <= l && isBstr("_"+s[m1:m1+6]) {
				if _, err := strconv.Unquote(`"\u` + s[m1+1:m1+5] + `"`); err == nil {
					b = append(b, sub+"x005F"+sub...)
					continue
				}
			}
			b = append(b, sub+"x005F_"...)
			continue
		}
		cursor = m1
		if _, err := strconv.Unquote(`"\u` + s[m0+2:m1-1] + `"`); err == nil {
			b = append(b, "_x005F"+sub...)
		}
	}
	if cursor < l {
		b = append(b, s[cursor:]...)
	}
	return b
}

// isBstr reports whether s (7 bytes) is _xHHHH_.
func isBstr(s string) bool {
	if s[0] != '_' || s[1] != 'x' || s[6] != '_' {
		return false
	}
	for i := 2; i < 6; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
