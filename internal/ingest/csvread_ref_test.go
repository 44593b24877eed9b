package ingest

// The CSV reader as it was before csvReader read unquoted lines itself
// (csvfast.go): every record through encoding/csv. Kept as the reference
// the generated inputs of csvfast_test.go compare csvReader with.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// refCSVReader streams records with their physical line numbers.
type refCSVReader struct {
	name string
	cr   *csv.Reader
	lim  *recordLimiter
	// nextLine is where the record after the last one starts, at least; it
	// names the line when a record cannot be read at all.
	nextLine int
	skipped  int64 // bytes of BOM the CSV reader never saw
}

func newRefCSVReader(r io.Reader, name string) *refCSVReader {
	lim := &recordLimiter{r: r}
	br := bufio.NewReaderSize(lim, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
		lim.mark = 3
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = false
	// nvidia-smi separates fields with ", "; no format gives leading spaces a meaning.
	cr.TrimLeadingSpace = true
	return &refCSVReader{name: name, cr: cr, lim: lim, nextLine: 1, skipped: lim.mark}
}

// next returns the next record and the line it starts on. A record the CSV
// syntax rejects comes back as rowErr, so the caller may skip it; fatal is
// io.EOF or an error that ends the file.
func (c *refCSVReader) next(header []string) (rec []string, line int, rowErr *ParseError, fatal error) {
	start := c.nextLine
	rec, err := c.cr.Read()
	c.lim.mark = c.skipped + c.cr.InputOffset()
	if len(rec) > 0 {
		line, _ = c.cr.FieldPos(0)
		last, _ := c.cr.FieldPos(len(rec) - 1)
		c.nextLine = last + 1
	} else {
		line = c.nextLine
	}
	if err == nil {
		return rec, line, nil, nil
	}
	var pe *csv.ParseError
	switch {
	case err == io.EOF:
		return nil, line, nil, io.EOF
	case errors.As(err, &pe):
		c.nextLine = pe.Line + 1
		// The words are the reader's own (quoteError): what this reference
		// checks is which records, lines and columns, not the message.
		return nil, pe.Line, quoteError(c.name, pe, 0, columnName(header, len(rec))), nil
	case errors.Is(err, errRecordTooLong):
		// The record began after the last one: the line the reader got
		// to is only where it gave up (a run of empty lines has no record).
		return nil, start, nil, &ParseError{File: c.name, Line: start, Msg: c.lim.tooLongCSV()}
	case stopped(err):
		return nil, line, nil, fmt.Errorf("%s:%d: %w", c.name, line, err)
	default:
		return nil, line, nil, &ParseError{File: c.name, Line: line,
			Msg: fmt.Sprintf("reading the file failed: %v", err)}
	}
}
