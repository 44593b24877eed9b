package report

import (
	"strings"
	"testing"
)

func TestChartText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"gpu-1", "gpu-1"},
		{"__f__function(){}__f__", "_f_function(){}_f_"},
		{"___f___", "_f_"}, // one replacement would create a new marker
		{"x\x1by", "x\uFFFDy"},
	}
	for _, tt := range tests {
		got := chartText(tt.in)
		if got != tt.want || strings.Contains(got, "__f__") {
			t.Errorf("chartText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
