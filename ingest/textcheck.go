package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text that no reader may take as it is: control characters, in a CSV
// field or a JSON string, and JSON keys an object holds twice. Both are
// checked on the record as read, before any parser picks fields out of it,
// so every reader refuses them the same way, naming the field.

// isControl reports the control characters refused in any text: C0 (NUL,
// ESC, …) but TAB, LF and CR, which free text may hold, and DEL. They have
// no place in an id, a name or a description; a NUL is what a log cut by a
// crash is padded with.
func isControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f
}

func controlMsg(r rune) string {
	name := fmt.Sprintf("U+%04X", r)
	if r == 0 {
		name = "NUL (U+0000)"
	}
	return "a control character " + name + " in the text; a field holds no control characters: " +
		"is the file cut or corrupt (a log cut by a crash is padded with NULs)? fix or export it again"
}

// checkControl refuses a CSV record with a control character, naming the field.
func checkControl(file string, line int, header, rec []string) *ParseError {
	for i, f := range rec {
		for j := 0; j < len(f); j++ {
			if c := f[j]; isControl(rune(c)) {
				return &ParseError{File: file, Line: line, Field: columnName(header, i),
					Msg: controlMsg(rune(c)) + " (found " + found(f) + ")"}
			}
		}
	}
	return nil
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
			for _, c := range raw[start+1 : i] {
				if isControl(rune(c)) {
					control = rune(c)
					break
				}
			}
			return string(raw[start+1 : i]), i, control
		}
	}
	note := func(r rune) {
		if control < 0 && isControl(r) {
			control = r
		}
	}
	var b strings.Builder
	for i := start + 1; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
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
			note(rune(c))
			b.WriteByte(c)
		}
	}
	return b.String(), len(raw), control
}
