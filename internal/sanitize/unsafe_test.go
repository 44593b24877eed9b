package sanitize

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// unsafeRanges are the characters issue 32 names, each range walked whole by
// the generated tests: C0, DEL, C1, the separators, the bidi controls and
// the zero-width characters.
var unsafeRanges = []struct {
	name   string
	lo, hi rune
}{
	{"C0", 0x00, 0x1f},
	{"DEL", 0x7f, 0x7f},
	{"C1", 0x80, 0x9f},
	{"line/paragraph separator", 0x2028, 0x2029},
	{"bidi embedding/override", 0x202a, 0x202e},
	{"bidi isolate", 0x2066, 0x2069},
	{"LRM/RLM", 0x200e, 0x200f},
	{"ALM", 0x061c, 0x061c},
	{"zero-width", 0x200b, 0x200d},
	{"word joiner", 0x2060, 0x2060},
	{"BOM/ZWNBSP", 0xfeff, 0xfeff},
}

// eachUnsafe calls f for every rune of unsafeRanges.
func eachUnsafe(f func(r rune)) {
	for _, rg := range unsafeRanges {
		for r := rg.lo; r <= rg.hi; r++ {
			f(r)
		}
	}
}

// independentlyUnsafe is the rule written from the Unicode categories
// alone, not from UnsafeRune's fast paths.
func independentlyUnsafe(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

func TestUnsafeRuneNamedCases(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    rune
		want bool
	}{
		{"NUL", 0, true}, {"ESC", 0x1b, true}, {"TAB", '\t', true}, {"DEL", 0x7f, true},
		{"8-bit CSI", 0x9b, true}, {"NEL", 0x85, true}, {"line separator", 0x2028, true},
		{"RLO", 0x202e, true}, {"ZWSP", 0x200b, true}, {"ZWJ", 0x200d, true}, {"BOM", 0xfeff, true},
		{"soft hyphen", 0xad, true}, {"tag character", 0xe0041, true},
		{"space", ' ', false}, {"NBSP", 0xa0, false}, {"é", 'é', false}, {"Han", '训', false},
		{"Arabic letter", 'م', false}, {"emoji", '🚀', false}, {"replacement char", 0xfffd, false},
	} {
		if got := UnsafeRune(tt.r); got != tt.want {
			t.Errorf("UnsafeRune(%s %U) = %v, want %v", tt.name, tt.r, got, tt.want)
		}
	}
}

// TestUnsafeRuneMatchesCategories: over every code point, UnsafeRune is
// exactly the union of Cc, Cf, Zl and Zp (checked with unicode.In).
func TestUnsafeRuneMatchesCategories(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // surrogates: no UTF-8 string holds one
		}
		if got, want := UnsafeRune(r), independentlyUnsafe(r); got != want {
			t.Fatalf("UnsafeRune(%U) = %v, want %v (categories Cc/Cf/Zl/Zp)", r, got, want)
		}
	}
}

// TestFindUnsafeGenerated: every rune of the listed ranges, put at a random
// place in a random id, is found at that place and named by its code point;
// with "\t\n\r" kept only those three pass.
func TestFindUnsafeGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(32))
	n := 0
	eachUnsafe(func(r rune) {
		id := randomID(rng)
		at := randomBoundary(rng, id)
		s := id[:at] + string(r) + id[at:]
		i, got := FindUnsafe(s, "")
		if i != at || got != r {
			t.Errorf("FindUnsafe(%q) = %d, %U; want %d, %U", s, i, got, at, r)
		}
		err := CheckText("the resource id", s, "")
		if err == nil || !strings.Contains(err.Error(), RuneName(r)) {
			t.Errorf("CheckText(%q) = %v; want an error naming %s", s, err, RuneName(r))
		}
		i, _ = FindUnsafe(s, "\t\n\r")
		if keep := r == '\t' || r == '\n' || r == '\r'; keep != (i < 0) {
			t.Errorf("FindUnsafe(%q, breaks kept) = %d", s, i)
		}
		n++
	})
	if n != 32+1+32+2+5+4+2+1+3+1+1 {
		t.Fatalf("walked %d runes, want every rune of the ranges", n)
	}
	if RuneName(0x9b) != "U+009B" || RuneName(0xe0041) != "U+E0041" {
		t.Errorf("RuneName: %s %s", RuneName(0x9b), RuneName(0xe0041))
	}
}

// TestWritersDefuseGenerated: every rune of the listed ranges at a random
// place in a random id leaves no writer as it is: Control, Terminal and
// Cell replace it (Text and Cell keep only line breaks and tabs), JSON
// escapes it so the document decodes to the same value and holds it not.
func TestWritersDefuseGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	eachUnsafe(func(r rune) {
		id := randomID(rng)
		at := randomBoundary(rng, id)
		s := id[:at] + string(r) + id[at:]
		breaks := r == '\n' || r == '\t'
		for _, w := range []struct {
			name string
			out  string
			kept bool // the writer keeps r by design
		}{
			{"Control", Control(s), false},
			{"Terminal", Terminal(s, 0), false},
			{"Text", Text(s), breaks},
			{"Cell", Cell(s), breaks || r == '\r'},
		} {
			if strings.ContainsRune(w.out, r) != w.kept {
				t.Errorf("%s(%q) = %q: %U kept = %v, want %v", w.name, s, w.out, r, !w.kept, w.kept)
			}
			if !w.kept && w.name != "Cell" && w.out != id[:at]+"\uFFFD"+id[at:] {
				t.Errorf("%s(%q) = %q, want the character replaced by U+FFFD", w.name, s, w.out)
			}
		}
		doc, err := json.Marshal(map[string]string{"resource_id": s})
		if err != nil {
			t.Fatal(err)
		}
		safe := JSON(doc)
		if strings.ContainsRune(string(safe), r) {
			t.Errorf("JSON(%s) = %s still holds %U", doc, safe, r)
		}
		var back map[string]string
		if err := json.Unmarshal(safe, &back); err != nil || back["resource_id"] != s {
			t.Errorf("JSON(%s) = %s decodes to %q, %v; want %q", doc, safe, back["resource_id"], err, s)
		}
	})
}

// TestAcceptedRunesAreSafeProperty: random strings drawn from the whole of
// Unicode; every character FindUnsafe passes over is in none of Cc, Cf, Zl,
// Zp, and the first one it stops at is.
func TestAcceptedRunesAreSafeProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(34))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(12); k >= 0; k-- {
			var r rune
			switch rng.Intn(3) {
			case 0:
				r = rune(rng.Intn(0x300)) // dense in the C0/C1 neighbourhood
			case 1:
				r = 0x2000 + rune(rng.Intn(0x80)) // general punctuation: separators, bidi, zero-width
			default:
				r = rune(rng.Intn(unicode.MaxRune + 1))
			}
			if utf8.ValidRune(r) {
				b.WriteRune(r)
			}
		}
		s := b.String()
		i, r := FindUnsafe(s, "")
		passed := s
		if i >= 0 {
			passed = s[:i]
		}
		for _, c := range passed {
			if independentlyUnsafe(c) {
				t.Fatalf("FindUnsafe(%q) passed over %U, which is in Cc/Cf/Zl/Zp", s, c)
			}
		}
		if i >= 0 && !independentlyUnsafe(r) {
			t.Fatalf("FindUnsafe(%q) stopped at %U, which is in none of Cc/Cf/Zl/Zp", s, r)
		}
		for _, c := range Control(s) {
			if independentlyUnsafe(c) {
				t.Fatalf("Control(%q) kept %U", s, c)
			}
		}
	}
}

// randomBoundary is a random byte offset of id that starts a character
// (or is its end), where a character can be put without cutting another.
func randomBoundary(rng *rand.Rand, id string) int {
	var at []int
	for i := range id {
		at = append(at, i)
	}
	at = append(at, len(id))
	return at[rng.Intn(len(at))]
}

// randomID is an id of the shapes bills carry: ASCII with dashes and
// slashes, now and then a Han character or an accented letter.
func randomID(rng *rand.Rand) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789-_/:."
	var b strings.Builder
	for k := 1 + rng.Intn(24); k > 0; k-- {
		switch rng.Intn(10) {
		case 0:
			b.WriteRune('训' + rune(rng.Intn(50)))
		case 1:
			b.WriteRune('à' + rune(rng.Intn(20)))
		default:
			b.WriteByte(chars[rng.Intn(len(chars))])
		}
	}
	return b.String()
}
