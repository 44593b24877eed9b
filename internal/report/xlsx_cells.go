package report

import (
	"math"
	"time"

	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/xuri/excelize/v2"
)

// streamRow is one row of a streamed sheet whose cells are reused from row to
// row. workbook.Rows.SetRow takes a *excelize.Cell as it takes a Cell and
// writes its XML before it returns, so the row's cells are written in place
// instead of each boxed anew into an interface, and a value equal to its
// column's previous one keeps the interface already boxed and skips
// sanitize.Cell (billing lines repeat their provider, account, category,
// start and end from line to line); Rows' own per-column cache then skips
// the cell's XML as well. The 200,000-line week of docs/BENCHMARKS.md
// §Report vs pandas boxed 6.4 million cells before this, about 250 MB of
// the report's 2.7 GB of garbage; the cells and the sheet's XML are the
// same.
type streamRow struct {
	cells []excelize.Cell
	raw   []string // text as given to text(), before sanitize.Cell: a repeat skips both
	row   []any
}

func newStreamRow(n int) *streamRow {
	return &streamRow{cells: make([]excelize.Cell, n), raw: make([]string, n), row: make([]any, n)}
}

// values is the row as SetRow takes it: nil for a blank cell.
func (r *streamRow) values() []any { return r.row }

// blank leaves cell i empty in this row.
func (r *streamRow) blank(i int) { r.row[i] = nil }

// cell points row i at its reused cell with style.
func (r *streamRow) cell(i, style int) *excelize.Cell {
	c := &r.cells[i]
	c.StyleID = style
	r.row[i] = c
	return c
}

// text is sanitize.Cell(s) with style; "" leaves the cell blank.
func (r *streamRow) text(i, style int, s string) {
	if s == "" {
		r.blank(i)
		return
	}
	r.str(i, style, s)
}

// str is sanitize.Cell(s) with style, a cell even for "".
func (r *streamRow) str(i, style int, s string) {
	c := r.cell(i, style)
	if _, ok := c.Value.(string); ok && r.raw[i] == s {
		return
	}
	r.raw[i] = s
	c.Value = sanitize.Cell(s)
}

// float is v with style. The same bits reuse the boxed value (== would take
// -0 for 0, which excelize writes differently).
func (r *streamRow) float(i, style int, v float64) {
	c := r.cell(i, style)
	if old, ok := c.Value.(float64); ok && math.Float64bits(old) == math.Float64bits(v) {
		return
	}
	c.Value = v
}

// int is v with style (an int cell, as excelize writes Go ints).
func (r *streamRow) int(i, style int, v int) {
	c := r.cell(i, style)
	if old, ok := c.Value.(int); ok && old == v {
		return
	}
	c.Value = v
}

// time is t with style; == (not Equal) so that the location, which decides
// what excelize writes, is the same too.
func (r *streamRow) time(i, style int, t time.Time) {
	c := r.cell(i, style)
	if old, ok := c.Value.(time.Time); ok && old == t {
		return
	}
	c.Value = t
}
