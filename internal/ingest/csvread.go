package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxRecordBytes bounds one CSV record. A stray quote turns the rest of a
// file into one field, which encoding/csv would otherwise buffer whole; 1 MB
// fields still pass.
const maxRecordBytes = 8 << 20

var errRecordTooLong = errors.New("record too long")

// recordLimiter sits under the CSV reader and refuses to hand it more than
// maxRecordBytes beyond the end of the last complete record.
type recordLimiter struct {
	r    io.Reader
	read int64 // bytes handed out
	mark int64 // input offset of the end of the last complete record

	// What the bytes of a record past its first suspectBytes are, to say
	// why it grew too long; no real record is that long, so other files
	// never pay for the look.
	seen          int64 // the mark the flags are about
	text, newline bool
	runaway       bool // the flags describe the record refused last
}

// suspectBytes is where a record starts to look like a runaway.
const suspectBytes = 1 << 20

func (l *recordLimiter) Read(p []byte) (int, error) {
	if l.read-l.mark > maxRecordBytes {
		l.runaway = l.seen == l.mark
		return 0, errRecordTooLong
	}
	n, err := l.r.Read(p)
	if l.read-l.mark > suspectBytes {
		l.look(p[:n])
	}
	l.read += int64(n)
	return n, err
}

func (l *recordLimiter) look(b []byte) {
	if l.seen != l.mark {
		l.seen, l.text, l.newline = l.mark, false, false
	}
	l.text = l.text || len(bytes.Trim(b, " \t\r\n")) > 0
	l.newline = l.newline || bytes.IndexByte(b, '\n') >= 0
}

// blank reports a runaway "record" that is only empty lines and spaces:
// the CSV reader skips empty lines without ever ending a record.
func (l *recordLimiter) blank() bool { return l.runaway && !l.text }

// tooLongCSV says why a CSV record passed maxRecordBytes.
func (l *recordLimiter) tooLongCSV() string {
	mib := maxRecordBytes >> 20
	switch {
	case l.blank():
		return fmt.Sprintf("more than %d MiB of empty lines and no record in them: the file is padding, not an export; check the file", mib)
	case l.runaway && !l.newline:
		return fmt.Sprintf("a line longer than %d MiB, without a line break: not a CSV file; check the file", mib)
	case l.runaway:
		// Only a quoted field carries a CSV record over a line break.
		return fmt.Sprintf("a record longer than %d MiB across many lines: a quoted field that is never closed (an unclosed quote); check the quotes", mib)
	}
	return fmt.Sprintf("a record longer than %d MiB (an unclosed quote, or not a CSV file); check the quotes or the file", mib)
}

// csvReader streams records with their physical line numbers. It splits
// a line without a double quote itself (csvfast.go: every line of an
// nvidia-smi log, nearly every line of a bill), as encoding/csv would with
// TrimLeadingSpace, and a line whose quoted fields are well formed and end
// on it (csvquotedline.go: every line of a FOCUS export); any other record
// with a quote it hands to encoding/csv (csvquoted.go), which reads it
// from the same buffer.
type csvReader struct {
	name string
	br   *bufio.Reader
	lim  *recordLimiter
	// nextLine is where the record after the last one starts, at least; it
	// names the line when a record cannot be read at all.
	nextLine int
	skipped  int64 // bytes of BOM the CSV reader never saw

	lines    int      // lines read so far: the number of the last one
	consumed int64    // bytes of the lines the fast path read
	long     []byte   // a line longer than br's buffer, put together
	rec      []string // the record handed out last, reused
	spans    []span   // the fields of a quoted line, reused
	q        quotedCSV
}

func newCSVReader(r io.Reader, name string) *csvReader {
	lim := &recordLimiter{r: r}
	br := bufio.NewReaderSize(lim, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
		lim.mark = 3
	}
	return &csvReader{name: name, br: br, lim: lim, nextLine: 1, skipped: lim.mark}
}

// readFailed is the error of a record the reader could not finish (fatal):
// the record began on start at the earliest and was being read at line.
func (c *csvReader) readFailed(err error, start, line int) error {
	switch {
	case errors.Is(err, errRecordTooLong):
		// The record began after the last one: the line the reader got
		// to is only where it gave up (a run of empty lines has no record).
		return &ParseError{File: c.name, Line: start, Msg: c.lim.tooLongCSV()}
	case stopped(err):
		return fmt.Errorf("%s:%d: %w", c.name, line, err)
	default:
		return &ParseError{File: c.name, Line: line,
			Msg: fmt.Sprintf("reading the file failed: %v", err)}
	}
}

// numbersRows is false: a CSV's records are named by the line they start on.
func (c *csvReader) numbersRows() bool { return false }

// columnName names column i for an error: its header, else its position.
func columnName(header []string, i int) string {
	if i >= 0 && i < len(header) && header[i] != "" {
		return header[i]
	}
	return fmt.Sprintf("column %d", i+1)
}

// blankRecord reports a record with nothing in it (a line of spaces or of
// bare commas); such lines carry no data and are skipped.
func blankRecord(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// checkUTF8 refuses a record with bytes that are not UTF-8, naming the field.
func checkUTF8(file string, line int, header, rec []string) *ParseError {
	for i, f := range rec {
		if !utf8.ValidString(f) {
			return utf8Error(file, line, header, i, f)
		}
	}
	return nil
}

func utf8Error(file string, line int, header []string, i int, f string) *ParseError {
	return &ParseError{File: file, Line: line, Field: columnName(header, i),
		Msg: "not UTF-8 (found " + found(f) + "); convert the file to UTF-8 (e.g. iconv -f GBK -t UTF-8) or set the mapping's encoding"}
}

// maxFound is how much of a bad value an error quotes.
const maxFound = 60

// found quotes a bad value for an error message, cut to maxFound characters.
func found(s string) string {
	if len(s) <= maxFound {
		return fmt.Sprintf("%q", s)
	}
	cut := maxFound
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:cut], len(s))
}

// cleanHeader trims the header names; a BOM may also hide inside a quoted
// first name.
func cleanHeader(rec []string) []string {
	h := make([]string, len(rec))
	for i, f := range rec {
		h[i] = cleanCell(f)
	}
	return h
}

// cleanCell is a header cell trimmed of spaces, a CR left by a line end and
// a BOM: cleanHeader's rule for one cell, which nvidia-smi's repeatsHeader
// also applies to a row that may be the header again.
func cleanCell(c string) string {
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c), "\ufeff"))
}

// columns finds a header's columns by a normalised name: lower case
// (headerIndex) or a format's own normalisation. A name the header holds
// twice is remembered, and looking it up records the duplicate: Parse then
// refuses the file, as finops cannot tell which of the two holds the value.
// Duplicates of columns finops does not read are left alone.
type columns struct {
	hdr   []string
	norm  func(string) string
	first map[string]int // normalised name → its first column
	again map[string]int // normalised name → its second column
	dup   [2]int         // the first duplicate read: both columns (dup[1] > 0 when set)
}

func newColumns(hdr []string, norm func(string) string) *columns {
	c := &columns{hdr: hdr, norm: norm, first: make(map[string]int, len(hdr))}
	for i, h := range hdr {
		k := norm(h)
		if k == "" {
			continue
		}
		if _, seen := c.first[k]; !seen {
			c.first[k] = i
		} else if _, seen := c.again[k]; !seen {
			if c.again == nil {
				c.again = map[string]int{}
			}
			c.again[k] = i
		}
	}
	return c
}

// headerIndex finds columns by their lower-case names.
func headerIndex(header []string) *columns { return newColumns(header, strings.ToLower) }

// col returns the column of the first of names present, or -1.
func (c *columns) col(names ...string) int {
	for _, n := range names {
		k := c.norm(n)
		if i, ok := c.first[k]; ok {
			if j, twice := c.again[k]; twice {
				c.noteDuplicate(i, j)
			}
			return i
		}
	}
	return -1
}

// noteDuplicate records that columns i < j hold the same field.
func (c *columns) noteDuplicate(i, j int) {
	if c.dup[1] == 0 {
		c.dup = [2]int{i, j}
	}
}

// duplicate is the error for the first duplicate read, or nil.
func (c *columns) duplicate(file string, line int) *ParseError {
	i, j := c.dup[0], c.dup[1]
	if j == 0 {
		return nil
	}
	msg := fmt.Sprintf("header: column %q appears twice (columns %d and %d)", c.hdr[i], i+1, j+1)
	if c.hdr[i] != c.hdr[j] {
		msg = fmt.Sprintf("header: columns %d %q and %d %q name the same field", i+1, c.hdr[i], j+1, c.hdr[j])
	}
	return &ParseError{File: file, Line: line, Field: c.hdr[i],
		Msg: msg + "; finops cannot tell which holds the value: remove or rename one and export again"}
}

// cell returns column i of rec trimmed, or "" when the row has no such column.
func cell(rec []string, i int) string {
	if i < 0 || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

// isNull reports the null spellings of text cells.
func isNull(s string) bool {
	return s == "" || strings.EqualFold(s, "null")
}

// isNullNumber reports the null spellings of numeric cells: besides empty
// and NULL, Tencent's "-", koku's "None", "N/A" and nvidia-smi's "[...]".
func isNullNumber(s string) bool {
	if len(s) > 0 && s[0] < utf8.RuneSelf && !strings.ContainsRune("nN-[", rune(s[0])) {
		// A number or a name: every null spelling starts with one of
		// these (no other ASCII letter folds to n), which spares a
		// million-row log three case-folding compares per cell.
		return false
	}
	if isNull(s) || s == "-" || strings.EqualFold(s, "none") || strings.EqualFold(s, "n/a") {
		return true
	}
	return len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']'
}
