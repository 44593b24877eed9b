package workbook

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/xuri/excelize/v2"
)

// Rows holds the data rows of a large streamed sheet, written as the sheet
// XML excelize's StreamWriter.SetRow writes for the same values, byte for
// byte (TestRowsMatchStreamWriter), but without its per-cell allocations:
// on the 200,000-line week SetRow was 3.5 s of the report's 9.7 s of CPU,
// most of it building, escaping and dropping an xlsxC for every one of 6.6
// million cells. Rows renders each cell straight into a buffer, keeps the
// XML of each column's previous value (billing lines repeat their provider,
// account, category and charge period from line to line) and deflates
// the rows as they come, in chunks on every core as Write does, into a
// temporary file: memory stays flat, and of the week's 370 MB of row XML
// only its 25 MB of deflate blocks are written to disk, then copied into
// the archive as they are (nothing is deflated at the end).
//
// The rows reach the workbook through its placeholder: the sheet's
// StreamWriter writes the header and settings, then Placeholder as row 2,
// and Write (ZipWriter) replaces that row with these rows while the archive
// is written. Rows takes what report's streamed sheets write — nil (no
// cell), and a string, float64, int, int64 or time.Time, bare or in an
// excelize.Cell or *excelize.Cell without a formula — and refuses anything else
// rather than guess at excelize's output. A cell's style is its own
// StyleID: the sheets have no column or row styles (a date needs a style,
// which excelize would otherwise add).
type Rows struct {
	token    string
	date1904 bool
	buf      []byte   // rows not yet handed to part
	file     *os.File // the deflated rows, made with the first chunk
	part     *zipPart // deflating to file
	free     [][]byte // part's chunk buffers, for reuse
	done     bool     // part flushed: the rows are complete in file
	rows     int      // rows written
	last     int      // the last row number written
	rowNum   []byte
	cols     []colCache
}

// colCache is the XML of a column's previous value: from its style
// attribute to the end of the cell.
type colCache struct {
	name  string // "A"
	kind  byte   // kindNone until a value is cached
	style int
	str   string
	bits  uint64 // a float64's bits or an int
	when  time.Time
	xml   []byte
}

const (
	kindNone = iota
	kindStr
	kindFloat
	kindInt
	kindTime
)

// NewRows returns an empty Rows for a sheet of f (whose date system, 1900 or
// 1904, its dates follow). Close removes what it spilled.
func NewRows(f *excelize.File) (*Rows, error) {
	props, err := f.GetWorkbookProps()
	if err != nil {
		return nil, fmt.Errorf("workbook: rows: %w", err)
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("workbook: rows: %w", err)
	}
	r := &Rows{token: "finops-rows-" + hex.EncodeToString(id[:]), buf: make([]byte, 0, chunkCap)}
	r.date1904 = props.Date1904 != nil && *props.Date1904
	return r, nil
}

// Len is the number of rows written.
func (r *Rows) Len() int { return r.rows }

// Placeholder is the row 2 the sheet's StreamWriter writes in place of
// these rows (Write finds it by its token, random per Rows, so no text
// from a bill can be taken for it).
func (r *Rows) Placeholder() []any { return []any{r.token} }

// SetRow appends row number row (after every row already written, from 2:
// row 1 is the StreamWriter's header) with values from column A, as
// StreamWriter.SetRow(cell "A<row>", values) would.
func (r *Rows) SetRow(row int, values []any) error {
	if row <= max(r.last, 1) {
		return fmt.Errorf("workbook: rows: row %d after row %d (rows go in order, from 2)", row, max(r.last, 1))
	}
	if row > excelize.TotalRows {
		return fmt.Errorf("workbook: rows: row %d past the sheet's %d", row, excelize.TotalRows)
	}
	// The row is rendered past r.buf's end and kept only once whole: a
	// refused row leaves the rows written before it, and its number, as
	// they were (TestRowsRefusedRowLeavesRows).
	r.rowNum = strconv.AppendInt(r.rowNum[:0], int64(row), 10)
	b := append(r.buf, `<row r="`...)
	b = append(b, r.rowNum...)
	b = append(b, `">`...)
	for i, v := range values {
		if v == nil {
			continue
		}
		var style int
		switch c := v.(type) {
		case *excelize.Cell:
			if c == nil {
				return fmt.Errorf("workbook: rows: row %d column %d: a nil *excelize.Cell", row, i+1)
			}
			if c.Formula != "" {
				return fmt.Errorf("workbook: rows: row %d column %d: a formula (not supported)", row, i+1)
			}
			style, v = c.StyleID, c.Value
		case excelize.Cell:
			if c.Formula != "" {
				return fmt.Errorf("workbook: rows: row %d column %d: a formula (not supported)", row, i+1)
			}
			style, v = c.StyleID, c.Value
		}
		if v == nil { // a Cell without a value: excelize writes its style alone
			b = r.cellStart(b, i)
			b = appendStyle(b, style)
			b = append(b, `></c>`...)
			continue
		}
		var err error
		if b, err = r.cell(b, i, style, v); err != nil {
			return fmt.Errorf("workbook: rows: row %d column %d: %w", row, i+1, err)
		}
	}
	r.buf = append(b, `</row>`...)
	r.last = row
	r.rows++
	if len(r.buf) >= zipChunk {
		return r.spill()
	}
	return nil
}

// cellStart appends `<c r="<col><row>"` for column i.
func (r *Rows) cellStart(b []byte, i int) []byte {
	for len(r.cols) <= i {
		name, _ := excelize.ColumnNumberToName(len(r.cols) + 1)
		r.cols = append(r.cols, colCache{name: name})
	}
	b = append(b, `<c r="`...)
	b = append(b, r.cols[i].name...)
	b = append(b, r.rowNum...)
	return append(b, '"')
}

// cell appends column i's cell for value v with style, from the column's
// cache when v and style are its previous ones.
func (r *Rows) cell(b []byte, i, style int, v any) ([]byte, error) {
	b = r.cellStart(b, i)
	c := &r.cols[i]
	switch x := v.(type) {
	case string:
		if c.kind == kindStr && c.style == style && c.str == x {
			return append(b, c.xml...), nil
		}
		c.kind, c.str = kindStr, x
		c.xml = appendInlineStr(appendStyle(c.xml[:0], style), x)
	case float64:
		if c.kind == kindFloat && c.style == style && c.bits == math.Float64bits(x) {
			return append(b, c.xml...), nil
		}
		c.kind, c.bits = kindFloat, math.Float64bits(x)
		c.xml = appendFloat(appendStyle(c.xml[:0], style), x)
	case int:
		return appendInt(appendStyle(b, style), int64(x)), nil
	case int64:
		return appendInt(appendStyle(b, style), x), nil
	case time.Time:
		if style == 0 {
			return b, fmt.Errorf("a date without a style (excelize would add one)")
		}
		if c.kind == kindTime && c.style == style && c.when == x {
			return append(b, c.xml...), nil
		}
		c.kind, c.when = kindTime, x
		c.xml = appendTime(appendStyle(c.xml[:0], style), x, r.date1904)
	default:
		return b, fmt.Errorf("unsupported value %T", v)
	}
	c.style = style
	return append(b, c.xml...), nil
}

// spill hands the buffer to be deflated into the temporary file, made on
// first use.
func (r *Rows) spill() error {
	if r.done {
		return fmt.Errorf("workbook: rows: written after the sheet was written")
	}
	if r.part == nil {
		f, err := os.CreateTemp("", "finops-rows-*.deflate")
		if err != nil {
			return fmt.Errorf("workbook: rows: %w", err)
		}
		r.file = f
		n := runtime.GOMAXPROCS(0)
		r.part = &zipPart{w: f, workers: n, free: &r.free, defl: newDeflaters(n)}
	}
	if err := r.part.chunk(r.buf); err != nil {
		return fmt.Errorf("workbook: rows: %w", err)
	}
	r.buf = takeChunk(&r.free)
	return nil
}

// writeDeflated appends every row to p, deflated (zipPart.deflated).
func (r *Rows) writeDeflated(p *zipPart) error {
	if !r.done {
		if len(r.buf) > 0 {
			if err := r.spill(); err != nil {
				return err
			}
		}
		if r.part == nil {
			return nil
		}
		if err := r.part.flush(); err != nil {
			return fmt.Errorf("workbook: rows: %w", err)
		}
		r.done = true
	}
	if _, err := r.file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("workbook: rows: %w", err)
	}
	br := bufio.NewReaderSize(r.file, 1<<20)
	return p.deflated(br, r.part.crc, r.part.raw, r.part.out)
}

// Close removes the temporary file, if any; the rows are gone after it.
func (r *Rows) Close() error {
	r.buf, r.free = nil, nil
	if r.part != nil {
		r.part.flush() // let the chunks in flight finish
	}
	if r.file == nil {
		return nil
	}
	name := r.file.Name()
	err := r.file.Close()
	r.file = nil
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}
