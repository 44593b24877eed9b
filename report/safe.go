package report

import (
	"github.com/finops-oss/finops/sanitize"
	"strings"
	"unicode"
	"unicode/utf16"
)

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
	s = sanitize.Control(s)
	for strings.Contains(s, "__f__") {
		s = strings.ReplaceAll(s, "__f__", "_f_")
	}
	return s
}
