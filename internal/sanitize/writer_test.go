package sanitize

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
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

// TestJSONWriterStreamsJSON: a document written to a JSONWriter in pieces
// cut anywhere, inside characters too, comes out as JSON of the whole
// document at once — the invariant that lets WriteJSON stream.
func TestJSONWriterStreamsJSON(t *testing.T) {
	runes := []rune{'a', '"', '\\', '\t', '\n', 0x1b, 0x7f, 0x85, 'é', '实', 0x202e, 0x200b, 0xfeff, 0x1f600, 0xe0001}
	rng := rand.New(rand.NewSource(7))
	for i := range 500 {
		var doc []byte
		for range rng.Intn(40) {
			doc = utf8.AppendRune(doc, runes[rng.Intn(len(runes))])
		}
		var got bytes.Buffer
		w := NewJSONWriter(&got)
		for rest := doc; len(rest) > 0; {
			n := 1 + rng.Intn(len(rest))
			if k, err := w.Write(rest[:n]); k != n || err != nil {
				t.Fatalf("case %d: Write(%q) = %d, %v", i, rest[:n], k, err)
			}
			rest = rest[n:]
		}
		if want := JSON(doc); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("case %d: streamed %q, whole %q", i, got.Bytes(), want)
		}
	}
}
