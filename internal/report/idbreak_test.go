package report

import (
	"html/template"
	"testing"
)

func TestBreakableID(t *testing.T) {
	// By hand: a <wbr> after every separator but a trailing one, text escaped.
	for _, tt := range []struct {
		id   string
		want template.HTML
	}{
		{"i-0a10g00000000001", "i-<wbr>0a10g00000000001"},
		{"autodl-a100x2", "autodl-<wbr>a100x2"},
		{"gpu.node_7:9400", "gpu.<wbr>node_<wbr>7:<wbr>9400"},
		{"plain", "plain"},
		{"x-", "x-"},
		{"", ""},
		{`<img src=x>-"a"`, `&lt;img src=x&gt;-<wbr>&#34;a&#34;`},
	} {
		if got := breakableID(tt.id); got != tt.want {
			t.Errorf("breakableID(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}
