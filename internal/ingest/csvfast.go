package ingest

import (
	"bufio"
	"bytes"
	"io"
	"unicode"
	"unicode/utf8"
)

// encoding/csv spent a quarter of the ingest of an nvidia-smi log on rows
// that hold no quote: per field it looks for a quote, copies the field
// into a buffer and records its position. Without a quote a CSV line is
// its text cut at each comma, each field trimmed of leading white space
// (TrimLeadingSpace), which next does in one pass over the line and one
// string for the record.
//
// The invariant (csvfast_test.go compares it with encoding/csv on
// generated input): csvReader.next returns the same records, line numbers,
// row errors and fatal errors as encoding/csv with ReuseRecord,
// FieldsPerRecord -1, TrimLeadingSpace and LazyQuotes off would, whatever
// the bytes.

// next returns the next record and the line it starts on. A record the CSV
// syntax rejects comes back as rowErr, so the caller may skip it; fatal is
// io.EOF or an error that ends the file.
func (c *csvReader) next(header []string) (rec []string, line int, rowErr *ParseError, fatal error) {
	start := c.nextLine
	for {
		raw, readErr := c.readLine()
		body, err := lineBody(raw, readErr)
		if bytes.IndexByte(body, '"') >= 0 {
			var ok bool
			if rec, ok = c.splitQuoted(body); !ok {
				// Quotes that carry the record over several lines, or
				// misplaced ones: encoding/csv reads it, from this line on.
				return c.quoted(header, start, raw, readErr)
			}
		}
		c.lines++
		c.consumed += int64(len(raw))
		if err == nil && len(body) == 0 {
			continue // encoding/csv skips an empty line
		}
		if err == io.EOF {
			return nil, start, nil, io.EOF
		}
		c.lim.mark = c.skipped + c.consumed + c.q.offset()
		line = c.lines
		c.nextLine = line + 1
		if rec == nil { // no quote: not split yet
			rec = c.split(body)
		}
		if err != nil {
			return nil, line, nil, c.readFailed(err, start, line)
		}
		return rec, line, nil, nil
	}
}

// readLine reads one line as it is in the file, with its line end: as
// encoding/csv reads it, a line longer than the buffer put together.
func (c *csvReader) readLine() ([]byte, error) {
	line, err := c.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		c.long = append(c.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = c.br.ReadSlice('\n')
			c.long = append(c.long, line...)
		}
		line = c.long
	}
	return line, err
}

// lineBody is a line without its line end, as encoding/csv's readLine
// has it: at the end of the file the last line ends the file (a \r before
// it dropped), and \r\n ends a line as \n does.
func lineBody(raw []byte, err error) ([]byte, error) {
	n := len(raw)
	if n > 0 && err == io.EOF {
		err = nil
		if raw[n-1] == '\r' {
			return raw[:n-1], nil
		}
	}
	switch {
	case n >= 2 && raw[n-2] == '\r' && raw[n-1] == '\n':
		return raw[:n-2], err
	case n >= 1 && raw[n-1] == '\n':
		return raw[:n-1], err
	}
	return raw, err
}

// split cuts a line without quotes into its fields: one string for the
// record, each field a part of it.
func (c *csvReader) split(body []byte) []string {
	s := string(body) // the record's one string; body's offsets are its offsets
	rec := c.rec[:0]
	for from := 0; ; {
		to := len(body)
		if i := bytes.IndexByte(body[from:], ','); i >= 0 {
			to = from + i
		}
		rec = append(rec, s[from+spaceLen(body[from:to]):to])
		if to == len(body) {
			break
		}
		from = to + 1
	}
	c.rec = rec
	return rec
}

// spaceLen is how many bytes of leading white space b has, as encoding/csv's
// TrimLeadingSpace trims it: white space as unicode.IsSpace has it, which no
// comma is part of. nvidia-smi puts a space before every field: the ASCII
// ones are skipped here, and only a byte past ASCII asks unicode.
func spaceLen(b []byte) int {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c >= utf8.RuneSelf:
			return len(b) - len(bytes.TrimLeftFunc(b[i:], unicode.IsSpace))
		case c != ' ' && (c < '\t' || c > '\r'):
			return i
		}
	}
	return len(b)
}
