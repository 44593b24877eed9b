package ingest

import (
	"bytes"
	"strings"
)

// A FOCUS export quotes its text fields on every line, so every record of
// it used to go through encoding/csv (0.37 s of a 200,000-row import's
// parser goroutine). A record that is one line and whose quoted fields are
// well formed is cut here instead, as encoding/csv would cut it: a field
// that starts with a quote (after TrimLeadingSpace's trimming) ends at a
// quote followed by a comma or the line's end, "" inside it standing for a
// quote. Anything else — a quoted field that runs past the line, a quote
// inside an unquoted field, a closing quote followed by another character
// — is left to encoding/csv, which carries the record on or rejects it.

// span is a field of a line: body[from:to], with "" for each quote when
// escaped.
type span struct {
	from, to int
	escaped  bool
}

// splitQuoted cuts body, a line without its line end that holds a quote,
// into its fields; ok is false when the line is not a well-formed record
// of its own. The record is one string, the line's text with "" made "
// in its escaped fields, each field a part of it.
func (c *csvReader) splitQuoted(body []byte) (rec []string, ok bool) {
	spans := c.spans[:0]
	escaped := false
	for i := 0; ; i++ {
		var f span
		if f, i, ok = fieldAt(body, i+spaceLen(body[i:])); !ok {
			return nil, false
		}
		spans = append(spans, f)
		escaped = escaped || f.escaped
		if i == len(body) {
			break
		}
	}
	c.spans = spans
	var s string
	if escaped {
		s, spans = unescapeFields(body, spans)
	} else {
		s = string(body)
	}
	rec = c.rec[:0]
	for _, f := range spans {
		rec = append(rec, s[f.from:f.to])
	}
	c.rec = rec
	return rec, true
}

// fieldAt reads the field that starts at body[i] (its leading space
// trimmed) and returns it and where it ends: at the comma after it or at
// the end of body.
func fieldAt(body []byte, i int) (f span, end int, ok bool) {
	if i < len(body) && body[i] == '"' {
		return quotedAt(body, i)
	}
	end = len(body)
	if j := bytes.IndexByte(body[i:], ','); j >= 0 {
		end = i + j
	}
	if bytes.IndexByte(body[i:end], '"') >= 0 {
		return span{}, 0, false // a bare quote: encoding/csv's error
	}
	return span{from: i, to: end}, end, true
}

// quotedAt reads the quoted field whose opening quote is body[i].
func quotedAt(body []byte, i int) (f span, end int, ok bool) {
	f.from = i + 1
	for j := f.from; ; {
		k := bytes.IndexByte(body[j:], '"')
		if k < 0 {
			return span{}, 0, false // the field goes on past the line
		}
		j += k + 1
		switch {
		case j == len(body) || body[j] == ',':
			f.to = j - 1
			return f, j, true
		case body[j] == '"':
			f.escaped = true
			j++
		default:
			return span{}, 0, false // text after the closing quote
		}
	}
}

// unescapeFields makes the record's string, in one allocation: body with
// each escaped field's "" made ", the spans moved to match.
func unescapeFields(body []byte, spans []span) (string, []span) {
	var b strings.Builder
	b.Grow(len(body))
	done, shift := 0, 0 // body[:done] is written; a byte after it moved back shift
	for i, f := range spans {
		if !f.escaped {
			spans[i] = span{from: f.from - shift, to: f.to - shift}
			continue
		}
		b.Write(body[done:f.from])
		for v := body[f.from:f.to]; ; {
			k := bytes.IndexByte(v, '"')
			if k < 0 {
				b.Write(v)
				break
			}
			b.Write(v[:k+1])
			v = v[k+2:]
		}
		spans[i] = span{from: f.from - shift, to: b.Len()}
		done, shift = f.to, f.to-b.Len()
	}
	b.Write(body[done:])
	return b.String(), spans
}
