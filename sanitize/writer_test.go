package sanitize

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a\nb\tc", "a\nb\tc"}, // lines and tabs stay
		{"x\x1b]0;pwned\x07y", "x\uFFFD]0;pwned\uFFFDy"},
		{"\x1b[2Jclear", "\uFFFD[2Jclear"},
		{"over\rwrite", "over\uFFFDwrite"},
		{"c1\u009bx", "c1\uFFFDx"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"实例ID", "实例ID"},
	} {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	for _, s := range []string{
		"h\x1b]0;t\x07.csv: FAILED\n",
		"prometheus http://u:pw@h:9090/ 2026-11-23: ok\n",
		"\xe5\xae", "\x9e\xe4", "\xbe\x8b\n", // 实例 cut inside both characters
		"tab\tkept\n",
	} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	want := "h\uFFFD]0;t\uFFFD.csv: FAILED\nprometheus http://u:xxxxx@h:9090/ 2026-11-23: ok\n实例\ntab\tkept\n"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
