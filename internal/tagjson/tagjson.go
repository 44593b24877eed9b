// Package tagjson writes a billing line's tags as JSON with sorted keys,
// byte for byte what encoding/json writes for a map[string]string, once
// per tag set: the store keeps them so, and the workbook shows them so.
package tagjson

import (
	"maps"
	"reflect"
	"slices"
	"unicode/utf8"
)

// Cache encodes tag maps, each the first time it is given and again only
// when it changed. Lines share their tag maps (a parser decodes a repeated
// tag cell once, the store a repeated stored text: finops.BillingLine.Tags),
// and sorting and encoding every line's tags was a twentieth of an import's
// parser goroutine and most of the workbook's Tags column. An entry is
// found by the map's address and used only while its copy of the tags is
// equal to the map, so the text is always the tags' as they are, even from
// a source that reuses and refills one map (TestCacheIsMarshal). The zero
// Cache is ready; it is not safe for concurrent use.
type Cache struct {
	byMap map[uintptr]entry
	keys  []string // scratch for sorting
	buf   []byte   // scratch for encoding
}

type entry struct {
	tags map[string]string // a copy, to check the map against
	text string
}

// cacheMax bounds a Cache: past it, it starts again.
const cacheMax = 4096

// Of returns m as JSON with sorted keys ("{}" for none).
func (c *Cache) Of(m map[string]string) string {
	at := reflect.ValueOf(m).Pointer()
	if e, ok := c.byMap[at]; ok && maps.Equal(e.tags, m) {
		return e.text
	}
	text := c.encode(m)
	if c.byMap == nil || len(c.byMap) >= cacheMax {
		c.byMap = map[uintptr]entry{}
	}
	c.byMap[at] = entry{tags: maps.Clone(m), text: text}
	return text
}

// encode writes m without encoding/json's reflection.
func (c *Cache) encode(m map[string]string) string {
	c.keys = c.keys[:0]
	for k := range m {
		c.keys = append(c.keys, k)
	}
	slices.Sort(c.keys)
	buf := append(c.buf[:0], '{')
	for i, k := range c.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, k)
		buf = append(buf, ':')
		buf = appendJSONString(buf, m[k])
	}
	buf = append(buf, '}')
	c.buf = buf
	return string(buf)
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does: HTML-safe (<, >, & as
// \u003c …), U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
