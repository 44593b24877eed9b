// Package sanitize makes untrusted text from bills, labels and scenario files
// safe for spreadsheet cells, terminals and file names.
package sanitize

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/finops-oss/finops/internal/termcol"
)

// MaxCellChars is Excel's limit on the characters in one cell, counted as
// Excel counts them, in UTF-16 units (an emoji is two); excelize cuts
// longer values without a mark, and one overlong label must not fail a
// workbook.
const MaxCellChars = 32767

// Cell makes a string safe to store in a spreadsheet cell. Cells are written
// as string cells, so Excel itself never evaluates them; but the value also
// survives "Save as CSV" and copy-paste into another sheet, where a leading
// =, +, -, @, tab or CR turns it into a formula (CSV/formula injection,
// OWASP). The standard defence is a leading apostrophe, which makes every
// spreadsheet treat the rest as text and is visible to the reader.
func Cell(s string) string {
	// Line breaks and tabs are text in a cell; every other unsafe character
	// (UnsafeRune: C1, U+2028, bidi and zero-width) becomes U+FFFD, the
	// rule of every writer.
	s = replaceControl(s, "\n\t\r")
	if s != "" {
		switch s[0] {
		case '=', '+', '-', '@', '\t', '\r':
			s = "'" + s
		}
	}
	return truncateUTF16(s, MaxCellChars)
}

// truncateUTF16 is Truncate counting UTF-16 units, as a spreadsheet counts
// a cell's characters: a value over max is cut to max-1 units and ends in
// "…", so it is never cut again, without a mark, by the workbook writer.
func truncateUTF16(s string, max int) string {
	if len(s) <= max { // a UTF-8 string has at least as many bytes as UTF-16 units
		return s
	}
	units := 0
	for i, r := range s {
		n := utf16.RuneLen(r)
		if units+n > max-1 {
			if units+utf16Units(s[i:]) <= max {
				return s // the rest fits: nothing to cut
			}
			return s[:i] + "…"
		}
		units += n
	}
	return s
}

func utf16Units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// Control replaces control characters and invisible formatting characters
// (UnsafeRune: C0, DEL, C1, U+2028/U+2029, bidi and zero-width characters)
// and invalid UTF-8 with U+FFFD so they cannot act on whatever displays the
// text or disguise it.
func Control(s string) string { return replaceControl(s, "") }

// Text is Control for text of several lines: newlines and tabs are kept,
// every other control character (ESC, BEL, CR, backspace, C1), every
// invisible format character (UnsafeRune) and invalid UTF-8 become U+FFFD, so the text cannot move the cursor, retitle the
// window or clear the screen of the terminal that shows it.
func Text(s string) string { return replaceControl(s, "\n\t") }

func replaceControl(s, keep string) string {
	if printableASCII(s) { // most text from a bill: nothing to replace, no scan of runes
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if UnsafeRune(r) && !strings.ContainsRune(keep, r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// printableASCII reports whether s is only bytes 0x20–0x7E, in which
// UnsafeRune finds nothing and which are valid UTF-8.
func printableASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !printable8(s, i) {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// Terminal makes a string safe for a terminal table: control characters
// (ANSI escape sequences, tabs and newlines that would break the columns, CR
// that would overwrite the line) are replaced, and values wider than max
// terminal columns (0 = no limit; a Chinese character takes two) are
// shortened so one label cannot push the table off the screen.
func Terminal(s string, max int) string {
	return termcol.Truncate(Control(s), max)
}

// Truncate cuts s to at most max characters, the last one "…" when it cut
// (max ≤ 0: no limit).
func Truncate(s string, max int) string {
	// A string has at most as many runes as bytes: a short one is not counted.
	if max > 0 && len(s) > max && utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max-1]) + "…"
	}
	return s
}

// FileLabel reduces a label to [A-Za-z0-9_.-] so that a file name built from
// it can never contain a path separator or leave its folder; an empty result
// becomes fallback.
func FileLabel(label, fallback string) string {
	out := make([]byte, 0, len(label))
	for _, c := range label {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-':
			out = append(out, byte(c))
		default:
			out = append(out, '_')
		}
	}
	// Leading dots would make a hidden file and ".." is meaningless as a label.
	s := strings.Trim(string(out), ".")
	if s == "" {
		return fallback
	}
	return s
}

// maxFileLabel is the longest label FileLabelUnique keeps whole: a file
// name is at most 255 bytes, and the label shares it with a prefix, the
// period and an extension.
const maxFileLabel = 64

// FileLabelUnique is FileLabel for labels that must stay apart: team
// names. Where FileLabel loses something — "." and ".." both read
// "report"; 视觉 and 语音 both "__" — or the label is longer than
// maxFileLabel, eight hex digits of the label's SHA-256 follow, so two
// teams never write the same file and no name is too long.
func FileLabelUnique(label, fallback string) string {
	s := FileLabel(label, fallback)
	if s == label && len(s) <= maxFileLabel {
		return s
	}
	if len(s) > maxFileLabel-9 {
		s = s[:maxFileLabel-9]
	}
	sum := sha256.Sum256([]byte(label))
	return s + "-" + hex.EncodeToString(sum[:4])
}
