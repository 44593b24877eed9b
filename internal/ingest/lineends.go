package ingest

import "io"

// Line ends. encoding/csv knows LF and CRLF only: a file whose lines end in
// a lone CR (classic Mac OS, Excel for Mac's "CSV (Macintosh)") reads as one
// record, a header that swallows every row. Such a file is read with its
// CRs outside quoted fields taken as LFs; a CR inside a quoted field stays
// data, as in any CSV.

// crLineEnds reports whether the first line end of a CSV prefix, outside
// quoted fields, is a lone CR.
func crLineEnds(prefix []byte) bool {
	quoted := false
	for i, c := range prefix {
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '\n':
			return false
		case c == '\r':
			return i+1 == len(prefix) || prefix[i+1] != '\n'
		}
	}
	return false
}

// crReader turns the CRs outside quoted fields into LFs. A quote toggles
// the state: a doubled quote inside a quoted field toggles it twice, so
// well-formed CSV keeps it right. A CRLF that a lone-CR file also holds
// becomes an empty line, which every reader skips.
type crReader struct {
	r      io.Reader
	quoted bool
}

func (c *crReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		switch {
		case b == '"':
			c.quoted = !c.quoted
		case b == '\r' && !c.quoted:
			p[i] = '\n'
		}
	}
	return n, err
}

// textWatch notes whether a file holds anything but blank lines after its
// first non-blank line, whatever its line ends (LF, CRLF or a lone CR). Parse
// uses it to refuse a file with such text that gave no row at all: a file
// whose data part is not empty never imports as zero rows. It stops looking
// once it has found text, so it costs nothing past the first lines.
type textWatch struct {
	r     io.Reader
	state int // watchBefore … watchFound
}

const (
	watchBefore = iota // no text yet
	watchFirst         // inside the first line with text
	watchAfter         // past its line end
	watchFound         // text after the first line
)

func (w *textWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	for _, b := range p[:n] {
		if w.state == watchFound {
			break
		}
		switch {
		case b == '\r' || b == '\n':
			if w.state == watchFirst {
				w.state = watchAfter
			}
		case blankByte(b):
		case w.state == watchBefore:
			w.state = watchFirst
		case w.state == watchAfter:
			w.state = watchFound
		}
	}
	return n, err
}

// found reports text after the first line.
func (w *textWatch) found() bool { return w.state == watchFound }

// blankByte reports the bytes of a line that carries nothing: white space,
// the separators and quotes of empty fields, and a UTF-8 BOM.
func blankByte(b byte) bool {
	switch b {
	case ' ', '\t', ',', '"', 0xef, 0xbb, 0xbf:
		return true
	}
	return false
}
