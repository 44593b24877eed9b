package workbook

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// TestRowsMatchStreamWriter: a sheet whose rows go through Rows (spliced in
// at its placeholder by Write) is the same workbook, part for part and byte
// for byte, as the sheet written by excelize's own StreamWriter.SetRow with
// the same values — over generated rows of text (escapes, white space at
// the ends, control characters, invalid UTF-8, _xHHHH_ sequences, text past
// Excel's 32,767 UTF-16 units), floats (±0, NaN, infinities, extremes, more
// than 15 significant digits), ints, instants in several zones from 1800 to
// 2500 in both date systems, styles, blank cells and cells without a value,
// in runs that repeat (Rows' column cache) and long enough to spill to its
// temporary file. excelize is the independent method: its SetRow is what
// the report wrote before.
func TestRowsMatchStreamWriter(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 35))
			nrows := 1 + rng.IntN(60)
			if seed%4 == 0 {
				nrows = 3000 + rng.IntN(2000) // past zipChunk of XML: deflated in chunks through the temporary file
			}
			date1904 := seed%3 == 0
			rows := make([][]any, nrows)
			cols := 1 + rng.IntN(12)
			for i := range rows {
				rows[i] = make([]any, cols)
				for j := range rows[i] {
					if i > 0 && rng.IntN(3) == 0 { // repeat the cell above
						rows[i][j] = rows[i-1][j]
						continue
					}
					rows[i][j] = randomCell(rng)
				}
			}
			want := streamWorkbook(t, rows, date1904, false, nil)
			got := streamWorkbook(t, rows, date1904, true, nil)
			compareParts(t, want, got)
		})
	}
}

// TestRowsRefusedRowLeavesRows: a row Rows refuses (a value it cannot
// write, after cells it has already rendered) leaves the rows before it,
// and the next row number, as they were — over generated rows with refused
// rows tried between them, the workbook is the one excelize's SetRow writes
// for the accepted rows alone.
func TestRowsRefusedRowLeavesRows(t *testing.T) {
	for _, seed := range []uint64{2, 5, 8, 11} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 36))
			nrows := 1 + rng.IntN(60)
			if seed == 8 {
				nrows = 3000 + rng.IntN(2000) // refusals after a spill too
			}
			rows := make([][]any, nrows)
			cols := 1 + rng.IntN(12)
			for i := range rows {
				rows[i] = make([]any, cols)
				for j := range rows[i] {
					rows[i][j] = randomCell(rng)
				}
			}
			want := streamWorkbook(t, rows, false, false, nil)
			got := streamWorkbook(t, rows, false, true, rng)
			compareParts(t, want, got)
		})
	}
}

// setRowRefused tries row number row as values with a value Rows refuses
// appended, and fails the test unless it is refused.
func setRowRefused(t *testing.T, rng *rand.Rand, rw *Rows, row int, values []any) {
	t.Helper()
	bad := []any{true, excelize.Cell{Formula: "A1", Value: 1}, time.Now(), (*excelize.Cell)(nil)}[rng.IntN(4)]
	if err := rw.SetRow(row, append(append([]any{}, values...), bad)); err == nil {
		t.Fatalf("row %d with %#v: no error", row, bad)
	}
}

// streamWorkbook writes rows (from row 2, under a header) on a streamed
// sheet, through excelize's SetRow or through Rows, and returns the file;
// with refuse, a refused row (setRowRefused) is tried before some rows.
func streamWorkbook(t *testing.T, rows [][]any, date1904, viaRows bool, refuse *rand.Rand) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if date1904 {
		if err := f.SetWorkbookProps(&excelize.WorkbookPropsOptions{Date1904: &date1904}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.NewSheet("Lines"); err != nil {
		t.Fatal(err)
	}
	sw, err := f.NewStreamWriter("Lines")
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.SetColWidth(1, 3, 14); err != nil {
		t.Fatal(err)
	}
	if err := sw.SetRow("A1", []any{"Header", excelize.Cell{StyleID: 1, Value: "B"}}, excelize.RowOpts{Height: 30}); err != nil {
		t.Fatal(err)
	}
	var rw *Rows
	if viaRows {
		if rw, err = NewRows(f); err != nil {
			t.Fatal(err)
		}
		defer rw.Close()
	}
	for i, r := range rows {
		if viaRows {
			if refuse != nil && refuse.IntN(3) == 0 {
				setRowRefused(t, refuse, rw, i+2, r)
			}
			err = rw.SetRow(i+2, r)
		} else {
			err = sw.SetRow(fmt.Sprintf("A%d", i+2), r)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := f.AutoFilter("Lines", fmt.Sprintf("A1:C%d", len(rows)+1), nil); err != nil {
		t.Fatal(err)
	}
	if viaRows && rw.Len() > 0 {
		if err := sw.SetRow("A2", rw.Placeholder()); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(f, &out, rw); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// compareParts fails unless a and b hold the same parts with the same bytes.
func compareParts(t *testing.T, a, b []byte) {
	t.Helper()
	pa, pb := parts(t, a), parts(t, b)
	if len(pa) != len(pb) {
		t.Fatalf("%d parts, want %d", len(pb), len(pa))
	}
	for name, want := range pa {
		got, ok := pb[name]
		if !ok {
			t.Fatalf("part %s missing", name)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Fatalf("part %s differs at byte %d of %d/%d:\n got …%s…\nwant …%s…", name, i, len(got), len(want),
				got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
		}
	}
}

func parts(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc) // checks the CRC
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		m[f.Name] = data
	}
	return m
}

// randomCell is a value as a streamed sheet's row holds it.
func randomCell(rng *rand.Rand) any {
	var v any
	switch rng.IntN(5) {
	case 0:
		v = randomText(rng)
	case 1:
		v = randomFloat(rng)
	case 2:
		v = []int{0, -1, 7, math.MaxInt64, math.MinInt64, rng.IntN(1 << 40), -rng.IntN(1000)}[rng.IntN(7)]
	case 3:
		v = randomTime(rng)
	case 4:
		v = nil
	}
	style := rng.IntN(6)
	if _, ok := v.(time.Time); ok && style == 0 {
		style = 3 // excelize would add a style of its own for a date without one
	}
	switch rng.IntN(4) {
	case 0:
		if v == nil {
			return nil
		}
		if _, ok := v.(time.Time); ok {
			return excelize.Cell{StyleID: style, Value: v}
		}
		return v // a bare value: no style
	case 1:
		return excelize.Cell{StyleID: style, Value: v}
	default:
		return &excelize.Cell{StyleID: style, Value: v}
	}
}

func randomText(rng *rand.Rand) string {
	pieces := []string{"i-0f00000249", "GPU", " ", "\t", "\n", "\r", "&", "<", ">", "\"", "'", "é", "日本",
		"😀", "\x01", "\x7f", "\xff", "_x0041_", "_x005F_", "_x005F_x0041_", "_xD800_", "_X0041_", "_x12G4_",
		"_x", "x0041_", "a_xd83d_b", "=SUM(A1)", "", "0.5", "_x005F_xZZZZ_", "\uFFFE", "\uFFFF", "\uE000", "\U0010FFFF", "\uFFFD"}
	n := rng.IntN(6)
	if rng.IntN(40) == 0 {
		return strings.Repeat(pieces[rng.IntN(len(pieces))], 32767/2+rng.IntN(32767)) // past Excel's cell limit
	}
	var b strings.Builder
	for range n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func randomFloat(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		return []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64,
			-math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2, 123456789012345678, 1e21, 1.5e-7}[rng.IntN(12)]
	case 1:
		return float64(rng.IntN(1000000)) / 100
	default:
		return (rng.Float64() - 0.3) * math.Pow(10, float64(rng.IntN(40)-15))
	}
}

func randomTime(rng *rand.Rand) time.Time {
	zones := []*time.Location{time.UTC, time.FixedZone("X", 5*3600+1800), time.FixedZone("Y", -7*3600)}
	for _, name := range []string{"America/New_York", "Pacific/Chatham", "Europe/Berlin"} {
		if loc, err := time.LoadLocation(name); err == nil {
			zones = append(zones, loc)
		}
	}
	from := time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	to := time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	sec := from + rng.Int64N(to-from)
	if rng.IntN(2) == 0 { // on the hour, as charge periods are
		sec -= sec % 3600
	}
	ns := int64(0)
	if rng.IntN(3) == 0 {
		ns = rng.Int64N(1e9)
	}
	return time.Unix(sec, ns).In(zones[rng.IntN(len(zones))])
}

// TestRowsRefuse: what Rows cannot write as excelize would is an error, not
// a guess; rows go in order from 2; and a Rows with rows whose placeholder
// never comes fails the write instead of dropping them.
func TestRowsRefuse(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	cases := []struct {
		name string
		row  int
		vals []any
	}{
		{"bool", 2, []any{true}},
		{"formula", 2, []any{excelize.Cell{Formula: "A1", Value: 1}}},
		{"date without style", 2, []any{time.Now()}},
		{"nil cell pointer", 2, []any{(*excelize.Cell)(nil)}},
		{"row 1", 1, []any{"x"}},
		{"past the sheet", excelize.TotalRows + 1, []any{"x"}},
	}
	for _, c := range cases {
		r, err := NewRows(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.SetRow(c.row, c.vals); err == nil {
			t.Errorf("%s: no error", c.name)
		}
		r.Close()
	}
	r, _ := NewRows(f)
	defer r.Close()
	if err := r.SetRow(3, []any{"x"}); err != nil {
		t.Fatal(err)
	}
	if err := r.SetRow(3, []any{"y"}); err == nil {
		t.Error("row 3 twice: no error")
	}
	if err := Write(f, io.Discard, r); err == nil || !strings.Contains(err.Error(), "placeholder") {
		t.Errorf("rows without a placeholder: %v, want an error", err)
	}
}
