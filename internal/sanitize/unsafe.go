package sanitize

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The one rule for invisible characters, in ingest and in every writer:
// no control or invisible formatting character from an input reaches an
// identifier, a team name, or any output. Ingest refuses them (FindUnsafe);
// the writers (Control, Text, Terminal, Cell, JSON) replace or escape them,
// so that a value stored before ingest refused them is defused all the same.

// UnsafeRune reports the characters no identifier, name or line of output
// may hold as they are: the control characters (Unicode category Cc: C0
// with TAB, LF, CR, NUL and ESC, DEL, and C1 with U+0085 NEL and U+009B, the
// 8-bit CSI that a terminal takes as ESC [), the line and paragraph
// separators U+2028 and U+2029 (Zl, Zp: a JavaScript or chat client breaks
// the line there), and the invisible format characters (Cf: the bidi
// controls U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C that
// reorder what is shown, the zero-width U+200B–U+200D, U+2060, U+FEFF that
// make two ids look alike, soft hyphens, tag characters). Each can make text
// read as something other than it is, or act on whatever shows it.
func UnsafeRune(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0xa0:
		return r >= 0x80 // C1
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// FindUnsafe returns the byte index and the rune of the first character of
// s that UnsafeRune refuses and keep does not list ("\t\n\r" for free text,
// which may hold line breaks; "" for an identifier), or -1. Invalid UTF-8 is
// not its business (the readers refuse it first) and is passed over.
//
// It passes over eight printable ASCII bytes at a time (printable8), in
// which there is nothing to find, and looks at each character only in the
// words that are not: checking every id of every billing line a byte at a
// time was a thirtieth of a FOCUS parse (issue #35).
func FindUnsafe(s, keep string) (int, rune) {
	for i := 0; i < len(s); {
		if i+8 <= len(s) && printable8(s, i) {
			i += 8
			continue
		}
		for end := min(i+8, len(s)); i < end; {
			c := s[i]
			if c < utf8.RuneSelf {
				if (c < 0x20 || c == 0x7f) && strings.IndexByte(keep, c) < 0 {
					return i, rune(c)
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError && UnsafeRune(r) && !strings.ContainsRune(keep, r) {
				return i, r
			}
			i += n
		}
	}
	return -1, 0
}

// printable8 reports whether the eight bytes of s from i are all printable
// ASCII (0x20–0x7E). Without a byte past ASCII, a byte below 0x20 makes
// x - 0x20 borrow into some byte's high bit that x lacks, and a 0x7F makes a
// zero byte of x ^ 0x7F…: the classic "has a byte less than n" and "has a
// zero byte" tests, exact about whether there is one.
func printable8(s string, i int) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	if x&highs != 0 {
		return false
	}
	below := (x - 0x20*ones) &^ x & highs
	del := x ^ 0x7f*ones
	del = (del - ones) &^ del & highs
	return below|del == 0
}

// RuneName names a character by its code point, "U+009B", as the refusals
// print it: the character itself is invisible or acts on the terminal.
func RuneName(r rune) string { return fmt.Sprintf("U+%04X", r) }

// CheckText is FindUnsafe as an error: nil, or one naming the code point
// and what to do ("the text holds U+009B, a control or invisible formatting
// character…"). what names the value ("the resource id").
func CheckText(what, s, keep string) error {
	i, r := FindUnsafe(s, keep)
	if i < 0 {
		return nil
	}
	return fmt.Errorf("%s holds %s, a control or invisible formatting character (%s): "+
		"it would make the text read as something other than it is; remove it from the source and export again",
		what, RuneName(r), runeClass(r))
}

// runeClass says in words which kind of unsafe character r is.
func runeClass(r rune) string {
	switch {
	case r == 0:
		return "NUL: a log cut by a crash is padded with NULs"
	case r == 0x1b:
		return "ESC: the start of a terminal escape sequence"
	case r < 0x20 || r == 0x7f:
		return "a C0 control character"
	case r >= 0x80 && r < 0xa0:
		return "a C1 control character"
	case r == 0x2028 || r == 0x2029:
		return "a line or paragraph separator"
	case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c:
		return "a bidirectional control that reorders the text around it"
	case r >= 0x200b && r <= 0x200d || r == 0x2060 || r == 0xfeff:
		return "a zero-width character"
	}
	return "an invisible format character"
}

// JSON escapes every unsafe character of an encoded JSON document as \uXXXX
// (a surrogate pair past U+FFFF), so the document means the same and holds
// none of them raw: encoding/json writes C1, DEL and format characters as
// they are. Outside strings JSON holds ASCII only, and a raw TAB, LF or CR
// there is whitespace (encoding/json escapes them inside strings), so they
// are kept.
func JSON(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		r, n := rune(b[i]), 1
		if b[i] >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(b[i:])
		}
		if r != '\t' && r != '\n' && r != '\r' && !(r == utf8.RuneError && n == 1) && UnsafeRune(r) {
			if out == nil {
				out = make([]byte, 0, len(b)+16)
			}
			out = append(out, b[last:i]...)
			if r > 0xffff {
				r -= 0x10000
				out = fmt.Appendf(out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
			last = i + n
		}
		i += n
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// Document replaces every unsafe character (UnsafeRune) of a whole
// generated document but TAB, LF and CR with U+FFFD: for an HTML page, whose
// own markup and scripts hold none of them, so what is left came from the
// data (a value stored before ingest refused them).
func Document(s string) string { return replaceControl(s, "\t\n\r") }
