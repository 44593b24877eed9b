package publish

import (
	"testing"
	"unicode"
)

// TestSafeHeaderUnsafeRunes: the text rule in a mail header — every rune
// of issue 32's ranges (CR and LF included) in a subject becomes a space,
// checked against the Unicode categories, not against sanitize.
func TestSafeHeaderUnsafeRunes(t *testing.T) {
	for _, rg := range [][2]rune{{0x00, 0x1f}, {0x7f, 0x9f}, {0x2028, 0x2029}, {0x202a, 0x202e}, {0x2066, 0x2069},
		{0x200e, 0x200f}, {0x061c, 0x061c}, {0x200b, 0x200d}, {0x2060, 0x2060}, {0xfeff, 0xfeff}} {
		for r := rg[0]; r <= rg[1]; r++ {
			got := SafeHeader("GPU cost nlp" + string(r) + "team")
			for _, c := range got {
				if unicode.In(c, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
					t.Errorf("SafeHeader with %U = %q: holds %U", r, got, c)
				}
			}
			if got != "GPU cost nlp team" {
				t.Errorf("SafeHeader with %U = %q, want the character as a space", r, got)
			}
		}
	}
}
