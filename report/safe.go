package report

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxCellChars is Excel's limit on the characters in one cell; excelize refuses
// longer values, and one overlong bill label must not fail the whole workbook.
const maxCellChars = 32767

// safeText makes an untrusted string (from bills, labels, task files) safe to
// store in a spreadsheet cell. The cell is always written as a string cell, so
// Excel itself never evaluates it; but the value also survives "Save as CSV" and
// copy-paste into another sheet, where a leading =, +, -, @, tab or CR turns it
// into a formula (CSV/formula injection, OWASP). The standard defence is a
// leading apostrophe, which makes every spreadsheet treat the rest as text and
// is visible to the reader, so nothing is hidden.
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

// sheetName turns an arbitrary string into a valid worksheet name: Excel allows
// at most 31 UTF-16 code units, none of : \ / ? * [ ], no leading or trailing
// apostrophe, and not the reserved name "History".
func sheetName(s string) string {
	var b strings.Builder
	units := 0
	for _, r := range strings.ToValidUTF8(s, "") {
		switch {
		case strings.ContainsRune(`:\/?*[]`, r):
			r = '_'
		case unicode.IsControl(r):
			continue
		}
		n := utf16.RuneLen(r)
		if units+n > 31 {
			break
		}
		units += n
		b.WriteRune(r)
	}
	name := strings.Trim(strings.TrimSpace(b.String()), "'")
	if name == "" || strings.EqualFold(name, "History") {
		return "Sheet"
	}
	return name
}

// chartText neutralises a data string before it goes into an ECharts option.
// go-echarts marks JavaScript functions by wrapping a string in "__f__" and its
// renderer strips the markers, turning the string into code; we never use that
// renderer for options, but a data label must not carry the marker either, in
// case the option JSON ever passes through it. Replacing until stable handles
// overlapping markers such as "___f___", where one replacement creates another.
func chartText(s string) string {
	s = cleanControl(s)
	for strings.Contains(s, "__f__") {
		s = strings.ReplaceAll(s, "__f__", "_f_")
	}
	return s
}

// termText makes an untrusted string safe for a terminal table: control
// characters (ANSI escape sequences, tabs and newlines that would break the
// columns, CR that would overwrite the line) are replaced, and long values are
// shortened so one label cannot push the table off the screen.
func termText(s string, max int) string {
	s = cleanControl(s)
	if max > 0 && utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max-1]) + "…"
	}
	return s
}

// cleanControl replaces control characters (C0, DEL, C1) and invalid UTF-8
// with U+FFFD so they cannot act on whatever displays the text.
func cleanControl(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// fileLabel reduces a period label to [A-Za-z0-9_.-] so that a report's file
// name built from it can never contain a path separator or leave the out dir.
func fileLabel(label string) string {
	out := make([]byte, 0, len(label))
	for _, c := range label {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-':
			out = append(out, byte(c))
		default:
			out = append(out, '_')
		}
	}
	// Leading dots would make a hidden file and ".." is meaningless as a label.
	s := strings.Trim(string(out), ".")
	if s == "" {
		return "report"
	}
	return s
}
