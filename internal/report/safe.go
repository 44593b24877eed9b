package report

import (
	"strings"

	"github.com/finops-oss/finops/internal/sanitize"
)

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
