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
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

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
// temporary file: memory stays flat, and the 370 MB of the week's XML are
// neither written to disk nor deflated at the end, but 25 MB of deflate
// blocks are, and copied into the archive as they are.
//
// The rows reach the workbook through its placeholder: the sheet's
// StreamWriter writes the header and settings, then Placeholder as row 2,
// and Write (ZipWriter) replaces that row with these rows while the archive
// is written. Rows takes what report's streamed sheets write — nil (no
// cell), and an excelize.Cell or *excelize.Cell holding a string, float64,
// int, int64 or time.Time, with no formula — and refuses anything else
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
	r.last = row
	r.rows++
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
			r.buf = b[:0]
			return fmt.Errorf("workbook: rows: row %d column %d: %w", row, i+1, err)
		}
	}
	r.buf = append(b, `</row>`...)
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
		c.xml = appendInlineStr(appendStyle(c.xml[:0], style), x, true)
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
	if n := len(r.free); n > 0 {
		r.buf, r.free = r.free[n-1][:0], r.free[:n-1]
	} else {
		r.buf = make([]byte, 0, chunkCap)
	}
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

// appendStyle appends the style attribute (none for 0) as writeCell does.
func appendStyle(b []byte, style int) []byte {
	if style == 0 {
		return b
	}
	b = append(b, ` s="`...)
	b = strconv.AppendInt(b, int64(style), 10)
	return append(b, '"')
}

// appendInt appends an int cell's type-less value and end.
func appendInt(b []byte, v int64) []byte {
	b = append(b, `><v>`...)
	b = strconv.AppendInt(b, v, 10)
	return append(b, `</v></c>`...)
}

// appendFloat appends a float cell's value and end, as setCellFloat: a NaN
// or an infinity is the text fmt.Sprint gives it; any other value has at
// most Excel's 15 significant digits (formatCellFloat).
func appendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return appendInlineStr(b, fmt.Sprint(v), true)
	}
	b = append(b, `><v>`...)
	b = appendCellFloat(b, v)
	return append(b, `</v></c>`...)
}

// appendCellFloat is excelize's formatCellFloat(v, -1, 64) appended to b:
// strconv's shortest 'f' form, its digits past the 15th significant one cut
// (after the point) or zeroed (before it).
func appendCellFloat(b []byte, v float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, v, 'f', -1, 64)
	if math.Abs(v) == math.MaxFloat64 {
		return b
	}
	const maxPrec = 15
	str := b[start:]
	decimal := -1
	for i, ch := range str {
		if ch == '.' {
			decimal = i
			break
		}
	}
	significant := 0
	for idx := range str {
		if str[idx] < '0' || str[idx] > '9' || significant == 0 && str[idx] == '0' {
			continue
		}
		significant++
		if significant <= maxPrec {
			continue
		}
		if decimal >= 0 && idx > decimal {
			cut := idx
			if cut > 0 && str[cut-1] == '.' {
				cut--
			}
			return b[:start+cut]
		}
		if decimal < 0 {
			decimal = len(str)
		}
		for ; idx < decimal; idx++ {
			str[idx] = '0'
		}
		return b[:start+decimal]
	}
	return b
}

// Excel's epochs, as excelize's date.go has them.
var (
	excelMinTime1900      = time.Date(1899, time.December, 31, 0, 0, 0, 0, time.UTC)
	excel1904Epoc         = time.Date(1904, time.January, 1, 0, 0, 0, 0, time.UTC)
	excelBuggyPeriodStart = time.Date(1900, time.March, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)
)

// appendTime appends a date cell's value and end as excelize's
// setCellTime: the wall clock of t's location as an Excel serial number, or,
// before Excel's first day, as RFC 3339 text.
func appendTime(b []byte, t time.Time, date1904 bool) []byte {
	_, offset := t.In(t.Location()).Zone()
	t = t.Add(time.Duration(offset) * time.Second)
	x := excelTime(t, date1904)
	if x > 0 {
		b = append(b, `><v>`...)
		b = strconv.AppendFloat(b, x, 'f', -1, 64)
		return append(b, `</v></c>`...)
	}
	// setCellDefault: the text as is, not escaped (RFC 3339 needs none).
	s := t.Format(time.RFC3339Nano)
	b = append(b, ` t="inlineStr"><is><t`...)
	b = append(b, preserveSpace(s)...)
	b = append(b, '>')
	b = append(b, s...)
	return append(b, `</t></is></c>`...)
}

// excelTime is excelize's timeToExcelTime.
func excelTime(t time.Time, date1904 bool) float64 {
	const (
		dayNanoseconds = 24 * time.Hour
		maxDuration    = 290 * 364 * dayNanoseconds
	)
	date := excelMinTime1900
	if date1904 {
		date = excel1904Epoc
	}
	if t.Before(date) {
		return 0
	}
	tt, diff, result := t, t.Sub(date), 0.0
	for diff >= maxDuration {
		result += float64(maxDuration / dayNanoseconds)
		tt = tt.Add(-maxDuration)
		diff = tt.Sub(date)
	}
	rem := diff % dayNanoseconds
	result += float64(diff-rem)/float64(dayNanoseconds) + float64(rem)/float64(dayNanoseconds)
	if !date1904 && t.After(excelBuggyPeriodStart) {
		result++
	}
	return result
}

// appendInlineStr appends a text cell's type, value and end as excelize's
// setInlineStr and writeCell: cut to Excel's 32,767 UTF-16 units, space
// preserved where it starts or ends with white space, XML-escaped
// (xml.EscapeText, newlines kept as they are) and with _xHHHH_ sequences
// escaped (bstrMarshal).
func appendInlineStr(b []byte, s string, escape bool) []byte {
	if len(s) > excelize.TotalCellChars && countUTF16(s) > excelize.TotalCellChars {
		s = truncateUTF16(s, excelize.TotalCellChars)
	}
	b = append(b, ` t="inlineStr"><is><t`...)
	b = append(b, preserveSpace(s)...)
	b = append(b, '>')
	if escape && s != "" && needsEscape(s) {
		start := len(b)
		b = appendEscaped(b, s)
		// bstrMarshal reads the escaped text: escaped again, from a copy,
		// only where it holds an _x.
		if hasBstr(b[start:]) {
			esc := string(b[start:])
			b = appendBstr(b[:start], esc)
		}
	} else {
		b = appendBstr(b, s)
	}
	return append(b, `</t></is></c>`...)
}

// appendEscaped appends s as xml.EscapeText writes it, but with newlines as
// they are (excelize turns its &#xA; back into a newline): &, <, >, quotes,
// tab and CR as entities; invalid UTF-8 and characters XML does not allow
// as U+FFFD.
func appendEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			continue
		case '\r':
			esc = "&#xD;"
		default:
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		b = append(b, s[last:i-width]...)
		b = append(b, esc...)
		last = i
	}
	return append(b, s[last:]...)
}

// xmlChar is encoding/xml's isInCharacterRange: the characters XML 1.0
// allows.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// hasBstr reports whether b holds "_x", where bstrMarshal may change it.
func hasBstr(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '_' && b[i+1] == 'x' {
			return true
		}
	}
	return false
}

// needsEscape reports whether xml.EscapeText could change s: any byte
// outside printable ASCII, or one of &<>"'.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e:
			return true
		case c == '&' || c == '<' || c == '>' || c == '"' || c == '\'':
			return true
		}
	}
	return false
}

// preserveSpace is the xml:space attribute of a text starting or ending
// with a tab, newline, carriage return or space.
func preserveSpace(s string) string {
	if s == "" {
		return ""
	}
	for _, c := range [...]byte{9, 10, 13, 32} {
		if s[0] == c || s[len(s)-1] == c {
			return ` xml:space="preserve"`
		}
	}
	return ""
}

func countUTF16(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

func truncateUTF16(s string, limit int) string {
	n := 0
	for i, r := range s {
		if n += utf16.RuneLen(r); n > limit {
			return s[:i]
		}
	}
	return s
}

// appendBstr appends s with excelize's bstrMarshal applied: each
// non-overlapping _xHHHH_ (H a hex digit), leftmost first, that stands for a
// valid character is escaped as _x005F_xHHHH_ (so a reader does not decode
// it); one for a surrogate is dropped; _x005F_ is doubled, or tripled
// before an xHHHH_ escape, as excelize does.
func appendBstr(b []byte, s string) []byte {
	if !strings.Contains(s, "_x") {
		return append(b, s...)
	}
	l, cursor := len(s), 0
	for i := 0; i+7 <= l; {
		if !isBstr(s[i : i+7]) {
			i++
			continue
		}
		m0, m1 := i, i+7
		i = m1
		b = append(b, s[cursor:m0]...)
		sub := s[m0:m1]
		if sub == "_x005F_" {
			cursor = m1
			if m1+6 <= l && isBstr("_"+s[m1:m1+6]) {
				if _, err := strconv.Unquote(`"\u` + s[m1+1:m1+5] + `"`); err == nil {
					b = append(b, sub+"x005F"+sub...)
					continue
				}
			}
			b = append(b, sub+"x005F_"...)
			continue
		}
		cursor = m1
		if _, err := strconv.Unquote(`"\u` + s[m0+2:m1-1] + `"`); err == nil {
			b = append(b, "_x005F"+sub...)
		}
	}
	if cursor < l {
		b = append(b, s[cursor:]...)
	}
	return b
}

// isBstr reports whether s (7 bytes) is _xHHHH_.
func isBstr(s string) bool {
	if s[0] != '_' || s[1] != 'x' || s[6] != '_' {
		return false
	}
	for i := 2; i < 6; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
