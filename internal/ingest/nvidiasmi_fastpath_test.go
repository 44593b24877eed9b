package ingest

import (
	"errors"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// The shortcuts nvidia-smi's cells take (isNullNumber's first byte,
// parseUtil's digits) give what the definitions they shortcut give, on
// generated cells: numbers with and without units, null spellings in any
// case, brackets, Unicode letters that fold to ASCII ones (K, ſ).
func TestSMICellShortcutsMatchDefinitions(t *testing.T) {
	pieces := []string{"0", "1", "7", "9", "42", "100", "000", "1234567890", ".", "-", "+", "e", "E", " ", "%", "MiB", "W",
		"n", "N", "u", "U", "l", "L", "o", "O", "e", "a", "A", "/", "[", "]", "N/A", "null", "NONE", "inf", "NaN",
		"\u212a", "\u017f", "é", "\x00", "x"}
	rng := rand.New(rand.NewSource(35))
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := rng.Intn(5); n >= 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, want := isNullNumber(s), isNullNumberDef(s); got != want {
			t.Fatalf("isNullNumber(%q) = %v, want %v", s, got, want)
		}
		f, err := parseUtil(s)
		wf, werr := parseUtilDef(s)
		if (err == nil) != (werr == nil) || math.Float64bits(f) != math.Float64bits(wf) && !(math.IsNaN(f) && math.IsNaN(wf)) {
			t.Fatalf("parseUtil(%q) = %v, %v; want %v, %v", s, f, err, wf, werr)
		}
	}
}

// isNullNumberDef is isNullNumber as defined: the null spellings.
func isNullNumberDef(s string) bool {
	if isNull(s) || s == "-" || strings.EqualFold(s, "none") || strings.EqualFold(s, "n/a") {
		return true
	}
	return len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']'
}

// parseUtilDef is parseUtil as defined: the number before the unit, by strconv.
func parseUtilDef(s string) (float64, error) {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[:i]
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, errNotNumber
	}
	return f, nil
}
