package sanitize

import (
	"io"
	"unicode/utf8"
)

// Writer passes what is written to w through Text and URLs: for an output
// stream (a command's standard output) whose lines quote file names, file
// contents and source addresses, so that none of them can act on the
// terminal or show a password. Each Write is taken as text of its own, so a
// URL is redacted when one Write holds it whole (fmt.Fprintf writes a line
// at once); a character cut between two Writes (a bufio.Writer's chunks) is
// held back until the next one completes it (a stream that ends inside a
// character, invalid UTF-8 anyway, loses those last bytes).
type Writer struct {
	w       io.Writer
	pending []byte // the start of a UTF-8 sequence the last Write ended in
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unwrap returns the underlying writer, for a caller that writes its own
// escape sequences (colour on a terminal) and must ask what w is.
func (s *Writer) Unwrap() io.Writer { return s.w }

func (s *Writer) Write(p []byte) (int, error) {
	b := append(s.pending, p...)
	cut := len(b) - partialRune(b)
	s.pending = append([]byte(nil), b[cut:]...)
	if cut == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(s.w, URLs(Text(string(b[:cut])))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// partialRune is how many bytes at the end of b start a UTF-8 sequence
// that the bytes so far do not complete.
func partialRune(b []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0 // ASCII: nothing is cut
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// JSONWriter passes an encoded JSON document written to w through JSON, as
// it is written: for a json.Encoder aimed at an output, so that the document
// need not be held a second time to be escaped. JSON looks at one character
// at a time, so a Write is escaped on its own; a character cut between two
// Writes is held back until the next one completes it (encoding/json writes
// valid UTF-8, so a document never ends inside one).
type JSONWriter struct {
	w       io.Writer
	pending []byte // the start of a UTF-8 sequence the last Write ended in
}

// NewJSONWriter returns a JSONWriter on w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

func (s *JSONWriter) Write(p []byte) (int, error) {
	b := append(s.pending, p...)
	cut := len(b) - partialRune(b)
	s.pending = append([]byte(nil), b[cut:]...)
	if cut == 0 {
		return len(p), nil
	}
	if _, err := s.w.Write(JSON(b[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}
