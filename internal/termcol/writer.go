package termcol

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// padding is the blanks between two columns.
const padding = 2

// Writer is text/tabwriter with padding 2 and blanks, measuring cells by
// display width. A cell is text ended by a tab; the text after a line's
// last tab is not aligned. As in tabwriter, a column is aligned over a block
// of consecutive lines that all have a cell in it.
type Writer struct {
	w     io.Writer
	right bool
	buf   bytes.Buffer
}

// NewWriter returns a Writer that pads cells on the right (left-aligned).
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// NewRightWriter returns a Writer that pads cells on the left (right-aligned).
func NewRightWriter(w io.Writer) *Writer { return &Writer{w: w, right: true} }

func (t *Writer) Write(p []byte) (int, error) { return t.buf.Write(p) }

// Flush lays out what was written and writes it to the underlying writer.
func (t *Writer) Flush() error {
	text := t.buf.String()
	t.buf.Reset()
	if text == "" {
		return nil
	}
	trailingNewline := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	cells := make([][]string, len(lines))
	widths := make([][]int, len(lines))
	for i, l := range lines {
		cells[i] = strings.Split(l, "\t")
	}
	layout(cells, widths, 0, 0, len(cells))
	var b strings.Builder
	for i, row := range cells {
		for c, s := range row {
			if c == len(row)-1 {
				b.WriteString(s)
				break
			}
			pad := strings.Repeat(" ", widths[i][c]-Width(s))
			if t.right {
				b.WriteString(pad + s)
			} else {
				b.WriteString(s + pad)
			}
		}
		if i < len(cells)-1 || trailingNewline {
			b.WriteByte('\n')
		}
	}
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return fmt.Errorf("termcol: %w", err)
	}
	return nil
}

// layout sets widths[i][col] for lines lo..hi, block by block, the way
// tabwriter's format does: a block is a run of lines with a cell in col,
// and the next column is laid out within each block.
func layout(cells [][]string, widths [][]int, col, lo, hi int) {
	for i := lo; i < hi; {
		if len(cells[i])-1 <= col {
			i++
			continue
		}
		j, w := i, 0
		for ; j < hi && len(cells[j])-1 > col; j++ {
			w = max(w, Width(cells[j][col]))
		}
		for k := i; k < j; k++ {
			widths[k] = append(widths[k], w+padding)
		}
		layout(cells, widths, col+1, i, j)
		i = j
	}
}
