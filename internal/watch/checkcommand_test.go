package watch

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCheckCommandRefusalsAreUTF8: a refusal quoting a long argument is
// valid UTF-8 and quotes at most 200 of its characters, whatever runes the
// argument holds and wherever the 200th falls (a cut by bytes split a
// multi-byte character, which %q then showed as \x escapes, and kept
// fewer characters). Arguments are generated: a placeholder inside a
// long run of 1- to 4-byte runes, which argvPlaceholder refuses quoting it.
func TestCheckCommandRefusalsAreUTF8(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	alphabet := []rune{'a', 'é', '中', '😀'} // 1, 2, 3 and 4 bytes
	ph := Fields()[0].Placeholder
	for n := 0; n < 300; n++ {
		var b strings.Builder
		for i, l := 0, 150+rng.Intn(200); i < l; i++ {
			b.WriteRune(alphabet[rng.Intn(len(alphabet))])
		}
		arg := "x" + ph + b.String()
		refusals := 0
		CheckCommand([]string{"/bin/true", arg}, nil, nil, func(_ int, msg string) {
			refusals++
			if !utf8.ValidString(msg) {
				t.Fatalf("argument of %d runes: refusal is not valid UTF-8: %q", utf8.RuneCountInString(arg), msg)
			}
			// The quoted argument is its first 199 characters and "…"
			// when it is longer than 200 (sanitize.Truncate), else whole.
			want := arg
			if r := []rune(arg); len(r) > 200 {
				want = string(r[:199]) + "…"
			}
			if !strings.Contains(msg, want) {
				t.Fatalf("refusal %q does not quote the argument's first 199 characters", msg)
			}
		})
		if refusals == 0 {
			t.Fatalf("%q: a placeholder inside an argument was not refused", arg)
		}
	}
}
