package plan

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scenario names, notes and provider names come from a file someone typed;
// they are untrusted wherever they are displayed.

// maxCellChars is Excel's limit on the characters of one cell.
const maxCellChars = 32767

// safeText makes a string safe for a spreadsheet cell. Cells are written as
// string cells, so Excel never evaluates them, but a value that starts with
// =, +, -, @, tab or CR becomes a formula once the sheet is saved as CSV or
// pasted elsewhere (CSV injection); a leading apostrophe makes every
// spreadsheet keep it as text, visibly.
func safeText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if s != "" {
		switch s[0] {
		case '=', '+', '-', '@', '\t', '\r':
			s = "'" + s
		}
	}
	if utf8.RuneCountInString(s) > maxCellChars {
		r := []rune(s)
		s = string(r[:maxCellChars-1]) + "…"
	}
	return s
}

// termText makes a string safe for the terminal: control characters (escape
// sequences, tabs and newlines that would break the table's columns) become
// U+FFFD, and long values are shortened.
func termText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if max > 0 && utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max-1]) + "…"
	}
	return s
}

// FileLabel reduces a label to [A-Za-z0-9_.-] so that an output file named
// after it stays in its folder; "" becomes "plan".
func FileLabel(label string) string {
	out := make([]byte, 0, len(label))
	for _, c := range label {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-':
			out = append(out, byte(c))
		default:
			out = append(out, '_')
		}
	}
	s := strings.Trim(string(out), ".")
	if s == "" {
		return "plan"
	}
	return s
}
