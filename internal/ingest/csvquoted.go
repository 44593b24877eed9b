package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// quotedCSV reads the records that hold a double quote with encoding/csv,
// from a lineFeed over csvReader's buffer. encoding/csv never reads past
// the line end that ends a record, and the feed hands it at most one line
// per read, so after each record nothing of the next is left inside
// encoding/csv and csvReader goes on from its own buffer.
type quotedCSV struct {
	feed lineFeed
	cr   *csv.Reader
}

// offset is how many bytes of the file encoding/csv has read.
func (q *quotedCSV) offset() int64 {
	if q.cr == nil {
		return 0
	}
	return q.cr.InputOffset()
}

// quoted reads the record that starts with raw, a line that holds a quote
// read with err, through encoding/csv: encoding/csv's line numbers count
// the lines it read, which are off lines behind the file's.
func (c *csvReader) quoted(header []string, start int, raw []byte, err error) (rec []string, line int, rowErr *ParseError, fatal error) {
	q := &c.q
	if q.cr == nil {
		q.feed.br = c.br
		q.cr = csv.NewReader(&q.feed)
		q.cr.ReuseRecord = true
		q.cr.FieldsPerRecord = -1
		q.cr.LazyQuotes = false
		// nvidia-smi separates fields with ", "; no format gives leading spaces a meaning.
		q.cr.TrimLeadingSpace = true
	}
	off := c.lines - q.feed.lines
	q.feed.buf = append(q.feed.buf[:0], raw...)
	q.feed.pend, q.feed.err = q.feed.buf, err
	rec, err = q.cr.Read()
	c.lines = q.feed.lines + off
	c.lim.mark = c.skipped + c.consumed + q.cr.InputOffset()
	if len(rec) > 0 {
		line, _ = q.cr.FieldPos(0)
		last, _ := q.cr.FieldPos(len(rec) - 1)
		line += off
		c.nextLine = last + off + 1
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
		c.nextLine = pe.Line + off + 1
		return nil, pe.Line + off, quoteError(c.name, pe, off, columnName(header, len(rec))), nil
	}
	return nil, line, nil, c.readFailed(err, start, line)
}

// quoteError says what is wrong with the quotes of a record.
func quoteError(file string, pe *csv.ParseError, off int, field string) *ParseError {
	msg := "malformed CSV: a quoted field is not closed, or has text after its closing quote; check the quotes"
	if errors.Is(pe.Err, csv.ErrBareQuote) {
		msg = `malformed CSV: a " inside an unquoted field; quote the field and double the inner quote ("")`
	} else if !errors.Is(pe.Err, csv.ErrQuote) {
		msg = "malformed CSV: " + pe.Err.Error()
	}
	return &ParseError{File: file, Line: pe.Line + off, Field: field,
		Msg: fmt.Sprintf("%s (column %d)", msg, pe.Column)}
}

// lineFeed hands encoding/csv a file one line at a time: first pend (the
// line csvReader read and found a quote in) and the error it was read
// with, then the lines after it from br. lines counts the lines handed
// out as encoding/csv counts them: a line cut off by an error or the end
// of the file is one.
type lineFeed struct {
	br      *bufio.Reader
	buf     []byte
	pend    []byte
	err     error // returned once pend is handed out
	lines   int
	partial bool // the last byte handed out was not a line end
}

func (f *lineFeed) Read(p []byte) (int, error) {
	if len(f.pend) == 0 && f.err == nil {
		line, err := f.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			err = nil // the rest of the line comes with the next read
		}
		f.buf = append(f.buf[:0], line...)
		f.pend, f.err = f.buf, err
	}
	n := copy(p, f.pend)
	f.pend = f.pend[n:]
	f.lines += bytes.Count(p[:n], []byte{'\n'})
	if n > 0 {
		f.partial = p[n-1] != '\n'
	}
	if len(f.pend) > 0 || f.err == nil {
		return n, nil
	}
	err := f.err
	f.err = nil
	if f.partial {
		f.lines++
		f.partial = false
	}
	return n, err
}
