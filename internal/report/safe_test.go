package report

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
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

func TestIdleTone(t *testing.T) {
	for _, tt := range []struct {
		idle, cost float64
		want       string
	}{{25, 100, "bad"}, {24.99, 100, "warn"}, {10, 100, "warn"}, {9.99, 100, ""}, {0, 0, ""}} {
		if got := idleTone(analysis.Totals{IdleCost: tt.idle, Cost: tt.cost}); got != tt.want {
			t.Errorf("idleTone(%v of %v) = %q, want %q", tt.idle, tt.cost, got, tt.want)
		}
	}
}
