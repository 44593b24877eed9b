package report

import (
	"slices"

	"github.com/finops-oss/finops/internal/workbook"
)

// Printing (README §Printing). A print area is a block of columns, so the
// columns a printed page needs must be the first ones: a wide sheet lists
// them first (keysFirst), and prints those alone, one page wide at 8 pt or
// more (workbook.PrintColumns). The other columns follow on screen.

// Columns the By resource and Recommendations sheets print, in their order.
var (
	resourceKeys = []string{"Resource ID", "Team", "GPU model", "GPUs", "Cost", "Idle cost", "Avg utilization",
		"GPU-hours billed", "GPU-hours idle", "Unmonitored cost"}
	recKeys = []string{"Resource ID", "Action", "Monthly savings", "Current monthly cost", "Recommended monthly cost",
		"Confidence", "Reason"}
)

// keysFirst moves the columns titled keys (in that order) to the front of
// cols and of every row, the others keeping their order after them, and
// returns how many columns moved. A key no column has is skipped.
func keysFirst(cols []workbook.Column, rows [][]any, keys []string) ([]workbook.Column, [][]any, int) {
	order := make([]int, 0, len(cols))
	for _, k := range keys {
		if i := slices.IndexFunc(cols, func(c workbook.Column) bool { return c.Title == k }); i >= 0 && !slices.Contains(order, i) {
			order = append(order, i)
		}
	}
	n := len(order)
	for i := range cols {
		if !slices.Contains(order, i) {
			order = append(order, i)
		}
	}
	out := make([]workbook.Column, len(cols))
	for to, from := range order {
		out[to] = cols[from]
	}
	for r, row := range rows {
		moved := make([]any, len(row))
		for to, from := range order {
			if from < len(row) {
				moved[to] = row[from]
			}
		}
		rows[r] = moved
	}
	return out, rows, n
}
