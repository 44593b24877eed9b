package sanitize

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// TestReplaceControlFastPath: replaceControl (with its printable-ASCII fast
// path) and Truncate (which skips counting a short string) give what the
// plain rule gives — every invalid byte and unsafe rune not kept replaced
// by U+FFFD; more than max runes cut to max-1 and "…" — over generated
// strings of printable ASCII, control characters, DEL, C1, U+2028, bidi and
// zero-width characters, other Unicode and invalid bytes, with each keep
// set the package uses.
func TestReplaceControlFastPath(t *testing.T) {
	plain := func(s, keep string) string {
		var b strings.Builder
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				// ToValidUTF8 turns a run of invalid bytes into one U+FFFD.
				if !strings.HasSuffix(b.String(), "\uFFFD") || !lastWasInvalid(s, i) {
					b.WriteRune('\uFFFD')
				}
				i++
				continue
			}
			if UnsafeRune(r) && !strings.ContainsRune(keep, r) {
				r = '\uFFFD'
			}
			b.WriteRune(r)
			i += n
		}
		return b.String()
	}
	pieces := []string{"abc", "i-0f0000249", " ", "=", "~", "\x00", "\x1f", "\t", "\n", "\r", "\x7f", "\u0085",
		"\u2028", "\u202e", "\u200b", "é", "日本", "😀", "\xff", "\xc3", "\xe2\x80", "\uFFFD"}
	rng := rand.New(rand.NewPCG(35, 24))
	for i := range 20000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		for _, keep := range []string{"", "\n\t", "\n\t\r"} {
			if got, want := replaceControl(s, keep), plain(s, keep); got != want {
				t.Fatalf("case %d: replaceControl(%q, %q) = %q, want %q", i, s, keep, got, want)
			}
		}
		max := rng.IntN(12)
		want := s
		if max > 0 && utf8.RuneCountInString(s) > max {
			want = string([]rune(s)[:max-1]) + "…"
		}
		if got := Truncate(s, max); got != want {
			t.Fatalf("case %d: Truncate(%q, %d) = %q, want %q", i, s, max, got, want)
		}
	}
}

// lastWasInvalid reports whether the byte before s[i] was part of an
// invalid run (so ToValidUTF8 has already written its U+FFFD).
func lastWasInvalid(s string, i int) bool {
	if i == 0 {
		return false
	}
	// Walk from the start: the run of invalid bytes ending at i-1.
	for j := 0; j < i; {
		r, n := utf8.DecodeRuneInString(s[j:])
		if j+n == i || (r == utf8.RuneError && n <= 1 && j == i-1) {
			return r == utf8.RuneError && n <= 1
		}
		j += n
	}
	return false
}

// TestCellFitsExcelsCount: invariant — Cell's value is at most
// MaxCellChars UTF-16 units (what Excel and excelize count: an emoji is
// two), ends in "…" exactly when the cleaned text was longer, and is then
// that text's longest prefix of whole characters that leaves room for the
// mark. Texts are generated around the limit from ASCII, CJK and emoji;
// the units are counted here with utf16.Encode, not as Cell counts them.
func TestCellFitsExcelsCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 767))
	pieces := []string{"a", "é", "中", "😀", "𝒳"}
	for n := 0; n < 200; n++ {
		var b strings.Builder
		target := MaxCellChars - 20 + rng.IntN(40)
		for units := 0; units < target; {
			p := pieces[rng.IntN(len(pieces))]
			b.WriteString(p)
			units += len(utf16.Encode([]rune(p)))
		}
		in := "x" + b.String() // no leading formula character
		got := Cell(in)
		gotUnits := len(utf16.Encode([]rune(got)))
		inUnits := len(utf16.Encode([]rune(in)))
		if gotUnits > MaxCellChars {
			t.Fatalf("case %d: %d units, over %d", n, gotUnits, MaxCellChars)
		}
		cut := inUnits > MaxCellChars
		if !cut {
			if got != in {
				t.Fatalf("case %d: %d units, within the limit, but changed", n, inUnits)
			}
			continue
		}
		prefix, ok := strings.CutSuffix(got, "…")
		if !ok || !strings.HasPrefix(in, prefix) {
			t.Fatalf("case %d: cut without the mark, or not a prefix", n)
		}
		// Longest: the next character of in would not have fitted.
		next, _ := utf8.DecodeRuneInString(in[len(prefix):])
		if len(utf16.Encode([]rune(prefix+string(next))))+1 <= MaxCellChars {
			t.Fatalf("case %d: cut at %d units, %q would still have fitted", n, gotUnits, next)
		}
	}
}

// TestFindUnsafeWordAtATime: FindUnsafe, which passes over printable ASCII
// eight bytes at a time, finds what the plain rule finds — the first rune
// UnsafeRune refuses and keep does not list, invalid bytes passed over — at
// the same index, over generated strings whose unsafe characters fall at
// every place of a word, and printable8 says of every byte value at every
// place of a word what the byte test says.
func TestFindUnsafeWordAtATime(t *testing.T) {
	plain := func(s, keep string) (int, rune) {
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError && UnsafeRune(r) && !strings.ContainsRune(keep, r) {
				return i, r
			}
			i += n
		}
		return -1, 0
	}
	pieces := []string{"a", "i-0f0000249", "abcdefgh", " ", "~", "\x00", "\x1f", "\t", "\n", "\r", "\x7f", "\x80",
		"\u0085", "\u009b", "\u2028", "\u202e", "\u200b", "é", "日本", "😀", "\xff", "\xc3", "\xe2\x80"}
	rng := rand.New(rand.NewPCG(35, 8))
	found := 0
	for i := range 50000 {
		var b strings.Builder
		for range rng.IntN(12) {
			if rng.IntN(3) > 0 {
				b.WriteString(pieces[rng.IntN(3)]) // mostly printable, so that whole words are passed over
			} else {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		s := b.String()
		for _, keep := range []string{"", "\t\n\r"} {
			gi, gr := FindUnsafe(s, keep)
			wi, wr := plain(s, keep)
			if gi != wi || gr != wr {
				t.Fatalf("case %d: FindUnsafe(%q, %q) = %d, %U; want %d, %U", i, s, keep, gi, gr, wi, wr)
			}
			if gi >= 8 {
				found++
			}
		}
	}
	if found < 1000 {
		t.Errorf("only %d finds past the first word: the strings are too short to test the word steps", found)
	}
	for c := range 256 {
		for at := range 8 {
			w := []byte("abcdefgh")
			w[at] = byte(c)
			if got, want := printable8(string(w), 0), c >= 0x20 && c <= 0x7e; got != want {
				t.Errorf("printable8 with %#x at %d = %v", c, at, got)
			}
		}
	}
}
