package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// parquetMagic starts and ends every Parquet file.
const parquetMagic = "PAR1"

// parquetBatch is how many rows one ReadRows call decodes; the rows' slices
// are reused, so memory stays that of one batch and the pages being read.
const parquetBatch = 256

// randomAccess is what reading a Parquet file needs: its footer comes first.
type randomAccess interface {
	io.ReaderAt
	Size() int64
}

// parquetFile is what Open returns for a Parquet file: the file itself,
// which Parse reads by row group through ReadAt.
type parquetFile struct {
	*os.File
	size int64
}

func (p *parquetFile) Size() int64 { return p.size }

// IsParquet reports whether r is a Parquet file Parse can read as such: a
// file Open returned, or bytes in memory, starting with PAR1. Callers that
// wrap readers (bufio) must hand such a reader to Parse unwrapped.
func IsParquet(r io.Reader) bool {
	ra, ok := r.(randomAccess)
	if !ok {
		return false
	}
	magic := make([]byte, len(parquetMagic))
	n, _ := ra.ReadAt(magic, 0)
	return n == len(magic) && string(magic) == parquetMagic
}

// parseParquet reads a Parquet export (FOCUS, CUR 2.0, or any format finops
// reads as CSV) row group by row group. Each row becomes the cells a CSV of
// the same data would have (parquetColumn), and goes through the same row
// parser, so a Parquet file and its CSV are read by one set of rules.
func parseParquet(ctx context.Context, ra randomAccess, opt Options, sink Sink) (sum *Summary, err error) {
	// The decoder is a dependency fed untrusted bytes; a corrupt file must
	// be refused, not crash the job half way through an import.
	defer func() {
		if p := recover(); p != nil {
			sum, err = nil, &ParseError{File: opt.Name,
				Msg: fmt.Sprintf("the Parquet data is corrupt (%v); copy or download the file again", p)}
		}
	}()
	if perr := checkParquetFooter(ra, opt.Name); perr != nil {
		return nil, perr
	}
	f, err := parquet.OpenFile(ra, ra.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err == nil {
		err = checkParquetChunks(f, ra.Size())
	}
	if err != nil {
		return nil, &ParseError{File: opt.Name,
			Msg: fmt.Sprintf("not a readable Parquet file (%v): it is truncated or corrupt; copy or download it again", err)}
	}
	src, hdr, warnings, perr := newParquetRows(f, opt.Name)
	if perr != nil {
		return nil, perr
	}
	if perr := checkParquetCodecs(f, opt.Name); perr != nil {
		return nil, perr
	}
	if perr := checkParquetPages(ra, f, opt.Name); perr != nil {
		return nil, perr
	}
	sum, err = parseRecords(ctx, src, hdr, 0, EncodingUTF8, nil, nil, opt, sink)
	if sum != nil {
		for _, w := range warnings {
			sum.Warn(&ParseError{File: opt.Name, Msg: w})
		}
	}
	return sum, err
}

// parquetRows is the recordSource of a Parquet file: rows in file order,
// numbered from 1.
type parquetRows struct {
	name   string
	groups []parquet.RowGroup
	cols   []parquetColumn
	leaves int

	group int          // next row group to open
	rows  parquet.Rows // the open row group's rows, nil between groups
	buf   []parquet.Row
	n, i  int // rows in buf, next one
	row   int // rows returned so far

	values [][]parquet.Value // per leaf column, the current row's values
	rec    []string
}

func newParquetRows(f *parquet.File, name string) (*parquetRows, []string, []string, *ParseError) {
	cols, leaves, warnings, perr := parquetColumns(f.Schema(), name)
	if perr != nil {
		return nil, nil, nil, perr
	}
	hdr := make([]string, len(cols))
	for i, c := range cols {
		hdr[i] = c.name
	}
	return &parquetRows{name: name, groups: f.RowGroups(), cols: cols, leaves: leaves,
		buf: make([]parquet.Row, parquetBatch), values: make([][]parquet.Value, leaves),
		rec: make([]string, len(cols))}, hdr, warnings, nil
}

func (p *parquetRows) numbersRows() bool { return true }

func (p *parquetRows) next([]string) ([]string, int, *ParseError, error) {
	for p.i >= p.n {
		if err := p.fill(); err != nil {
			return nil, p.row + 1, nil, err
		}
	}
	row := p.buf[p.i]
	p.i++
	p.row++
	for i := range p.values {
		p.values[i] = p.values[i][:0]
	}
	row.Range(func(c int, vals []parquet.Value) bool {
		if c >= 0 && c < len(p.values) {
			p.values[c] = vals
		}
		return true
	})
	if perr := p.checkRow(); perr != nil {
		return nil, p.row, nil, perr
	}
	for i, c := range p.cols {
		p.rec[i] = c.cell(p.values)
	}
	return p.rec, p.row, nil, nil
}

// checkRow refuses the current row when its text would be longer than a
// CSV record may be (maxRecordBytes), or a map or list cell holds more than
// maxParquetMapEntries entries, before any of its text is built: the whole
// file is refused, as a CSV with a runaway record is.
func (p *parquetRows) checkRow() *ParseError {
	total, largest, at := 0, 0, 0
	for i, c := range p.cols {
		n, entries := c.size(p.values)
		if c.kind != parquetScalar && entries > maxParquetMapEntries {
			return &ParseError{File: p.name, Line: p.row, Row: true, Field: c.name,
				Msg: fmt.Sprintf("%d entries in one cell; a map or list cell holds at most %d (no cloud allows that many tags on a resource): the file is not a billing export (or is corrupt); check where it came from and export it again", entries, maxParquetMapEntries)}
		}
		total += n
		if n > largest {
			largest, at = n, i
		}
	}
	if total > maxRecordBytes {
		return &ParseError{File: p.name, Line: p.row, Row: true, Field: p.cols[at].name,
			Msg: fmt.Sprintf("the row is %d bytes long (this column %d); a row is at most %d MiB, as a CSV record: the file is not a billing export (or is corrupt); check where it came from and export it again", total, largest, maxRecordBytes>>20)}
	}
	return nil
}

// fill reads the next batch of rows, opening the next row group when the
// current one is done; io.EOF after the last.
func (p *parquetRows) fill() error {
	for {
		if p.rows == nil {
			if p.group >= len(p.groups) {
				return io.EOF
			}
			p.rows = p.groups[p.group].Rows()
			p.group++
		}
		n, err := p.rows.ReadRows(p.buf)
		p.n, p.i = n, 0
		if err == io.EOF || (err == nil && n == 0) {
			cerr := p.rows.Close()
			p.rows = nil
			if cerr != nil {
				return p.corrupt(cerr)
			}
			if n > 0 {
				return nil
			}
			continue
		}
		if err != nil {
			p.rows.Close()
			p.rows = nil
			return p.corrupt(err)
		}
		return nil
	}
}

func (p *parquetRows) corrupt(err error) *ParseError {
	return &ParseError{File: p.name, Line: p.row + 1, Row: true,
		Msg: fmt.Sprintf("reading row group %d failed (%v): the Parquet file is truncated or corrupt; copy or download it again", p.group, err)}
}

// hasParquetMagic reports a stream that starts like a Parquet file.
func hasParquetMagic(prefix []byte) bool { return bytes.HasPrefix(prefix, []byte(parquetMagic)) }
