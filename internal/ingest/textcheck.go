package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/finops-oss/finops/internal/sanitize"
)

// Text that no reader may take as it is: control characters, in a CSV
// field or a JSON string, and JSON keys an object holds twice. Both are
// checked on the record as read, before any parser picks fields out of it,
// so every reader refuses them the same way, naming the field.

// isControl reports the C0 control characters refused in any text
// (NUL, ESC, …) but TAB, LF and CR, which free text may hold, and DEL: the
// ASCII part of sanitize.UnsafeRune, which scanText looks for a word at a
// time. A NUL is what a log cut by a crash is padded with.
func isControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f
}

// textKeep are the characters sanitize.UnsafeRune refuses that a field of
// free text (a description) may hold; an identifier holds none of them
// (checkIDs).
const textKeep = "\t\n\r"

// unsafeIn returns the index and the rune of the first character of f that
// no field may hold (sanitize.UnsafeRune but textKeep), or -1, and whether
// f has a byte past ASCII: the ASCII ones a word at a time (scanText), the
// others (C1, U+2028, bidi and zero-width characters) only in a field that
// has a byte past ASCII.
func unsafeIn(f string) (at int, r rune, nonASCII bool) {
	j, nonASCII := scanText(f)
	if j >= 0 {
		return j, rune(f[j]), nonASCII
	}
	if nonASCII {
		at, r = sanitize.FindUnsafe(f, textKeep)
		return at, r, true
	}
	return -1, 0, false
}

func controlMsg(r rune) string {
	name := sanitize.RuneName(r)
	kind := "a control character"
	switch {
	case r == 0:
		name = "NUL (U+0000)"
	case r == 0x2028 || r == 0x2029:
		kind = "a line or paragraph separator"
	case !unicode.Is(unicode.Cc, r):
		kind = "an invisible formatting character"
	}
	return kind + " " + name + " in the text; a field holds no control or invisible formatting characters " +
		"(they act on the terminal that shows the text or make one id look like another): " +
		"is the file cut or corrupt (a log cut by a crash is padded with NULs)? fix or export it again"
}

// checkControl refuses a CSV record with a control character, naming the field.
func checkControl(file string, line int, header, rec []string) *ParseError {
	for i, f := range rec {
		if j, r, _ := unsafeIn(f); j >= 0 {
			return controlError(file, line, header, i, f, r)
		}
	}
	return nil
}

// checkText is checkUTF8 and then checkControl in one pass over a record's
// bytes, with the same errors: bytes that are not UTF-8 in any field come
// before a control character. The two passes were a fifth of parsing a
// large export; most of its fields are ASCII, which is UTF-8 as it is.
func checkText(file string, line int, header, rec []string) *ParseError {
	ctl, bad := -1, rune(0)
	for i, f := range rec {
		j, r, nonASCII := unsafeIn(f)
		if nonASCII && !utf8.ValidString(f) {
			return utf8Error(file, line, header, i, f)
		}
		if ctl < 0 && j >= 0 {
			ctl, bad = i, r
		}
	}
	if ctl >= 0 {
		return controlError(file, line, header, ctl, rec[ctl], bad)
	}
	return nil
}

func controlError(file string, line int, header []string, i int, f string, r rune) *ParseError {
	return &ParseError{File: file, Line: line, Field: columnName(header, i),
		Msg: controlMsg(r) + " (found " + found(f) + ")"}
}

// scanText returns the index of the first control character of s
// (isControl), or -1, and whether s has a byte past ASCII. It reads eight
// bytes at a time and looks at single bytes only in a word that may hold a
// control character.
func scanText(s string) (ctl int, nonASCII bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var high uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		high |= x
		below := (x - 0x20*ones) &^ x & highs // a byte < 0x20 (exact for a word without high bytes; else a false alarm at most)
		del := x ^ 0x7f*ones
		del = (del - ones) &^ del & highs // a byte == 0x7f
		if below|del == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if isControl(rune(s[j])) {
				return j, nonASCIIFrom(s, j, high&highs != 0)
			}
		}
	}
	for ; i < len(s); i++ {
		high |= uint64(s[i])
		if isControl(rune(s[i])) {
			return i, nonASCIIFrom(s, i, high&highs != 0)
		}
	}
	return -1, high&highs != 0
}

// nonASCIIFrom finishes scanText's look for a byte past ASCII once a
// control character was found at i (seen: one was found before i's word).
func nonASCIIFrom(s string, i int, seen bool) bool {
	if seen {
		return true
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// checkJSONRecord walks one JSON record, valid as the decoder returned it,
// and refuses a key that an object holds twice and a control character in
// a string. encoding/json would keep the last of two keys, and it matches
// struct fields whatever their case, so "amount" and "Amount" are one field
// to it and are refused as such. path names the record ("[3]").
func checkJSONRecord(file string, line int, path string, raw []byte) *ParseError {
	type frame struct {
		object bool
		key    string          // the current key of an object
		index  int             // the current element of an array
		keys   []string        // folded keys so far, while few
		keySet map[string]bool // …and then
	}
	var stack []*frame
	where := func() string {
		var b strings.Builder
		b.WriteString(path)
		for _, f := range stack {
			if f.object {
				b.WriteString("." + f.key)
			} else {
				fmt.Fprintf(&b, "[%d]", f.index)
			}
		}
		return b.String()
	}
	expectKey := false
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{':
			stack = append(stack, &frame{object: true})
			expectKey = true
		case '[':
			stack = append(stack, &frame{})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := stack[len(stack)-1]; top.object {
				expectKey = true
			} else {
				top.index++
			}
		case '"':
			s, end, bad := jsonString(raw, i)
			i = end
			if expectKey {
				expectKey = false
				top := stack[len(stack)-1]
				top.key = s
				if dup := addKey(&top.keys, &top.keySet, strings.ToLower(s)); dup {
					return &ParseError{File: file, Line: line, Field: where(),
						Msg: fmt.Sprintf("the key %q appears twice in one object (keys differing only in case count as one); finops cannot tell which holds the value: fix the export", s)}
				}
			}
			if bad >= 0 {
				return &ParseError{File: file, Line: line, Field: where(), Msg: controlMsg(bad) + " (found " + found(s) + ")"}
			}
		}
	}
	return nil
}

// addKey adds a folded key to an object's keys and reports whether it was
// there already; past a few keys it uses a set, so a hostile object of a
// million keys costs no more than its size.
func addKey(keys *[]string, set *map[string]bool, k string) (dup bool) {
	if *set == nil {
		for _, x := range *keys {
			if x == k {
				return true
			}
		}
		if *keys = append(*keys, k); len(*keys) <= 16 {
			return false
		}
		*set = make(map[string]bool, 2*len(*keys))
		for _, x := range *keys {
			(*set)[x] = true
		}
		*keys = nil
		return false
	}
	if (*set)[k] {
		return true
	}
	(*set)[k] = true
	return false
}

// jsonString decodes the string starting at raw[start] (a quote) of valid
// JSON. It returns the text, the index of its closing quote and the first
// control character in it (raw, or escaped: \b, \f, \u0000…), or -1.
func jsonString(raw []byte, start int) (s string, end int, control rune) {
	control = -1
	// Most strings hold no escape: their text is their bytes.
	for i := start + 1; i < len(raw); i++ {
		if c := raw[i]; c == '\\' {
			break
		} else if c == '"' {
			s := string(raw[start+1 : i])
			if j, r := sanitize.FindUnsafe(s, textKeep); j >= 0 {
				control = r
			}
			return s, i, control
		}
	}
	note := func(r rune) {
		if control < 0 && sanitize.UnsafeRune(r) && !strings.ContainsRune(textKeep, r) {
			control = r
		}
	}
	var b strings.Builder
	for i := start + 1; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			if j, r := sanitize.FindUnsafe(b.String(), textKeep); j >= 0 && control < 0 {
				control = r
			}
			return b.String(), i, control
		case c == '\\' && i+1 < len(raw):
			i++
			switch e := raw[i]; e {
			case 'b':
				b.WriteByte('\b')
				note('\b')
			case 'f':
				b.WriteByte('\f')
				note('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if i+4 < len(raw) {
					if n, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 32); err == nil {
						r := rune(n)
						note(r)
						if utf8.ValidRune(r) {
							b.WriteRune(r)
						} else { // half of a surrogate pair: its text does not matter here
							b.WriteRune(utf8.RuneError)
						}
					}
					i += 4
				}
			default: // \" \\ \/
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c) // a character past ASCII comes a byte at a time: judged whole below
		}
	}
	return b.String(), len(raw), control
}
