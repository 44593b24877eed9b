package report

import (
	"archive/zip"
	"bytes"
	"io"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/xuri/excelize/v2"
)

// TestStreamRowSameAsBoxed checks streamRow's invariant: a sheet streamed
// through one reused streamRow has the same XML as the same rows written with
// every cell boxed anew as an excelize.Cell (what the sheets did before). The
// rows are random, with the repeats the cache keys on, and the values it must
// not take for one another: -0 and 0, NaN, the same instant in two zones,
// "" against a blank, text that sanitize.Cell changes.
func TestStreamRowSameAsBoxed(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	texts := []string{"", "a", "b", "=1+2", "x\x1by", " lead", "a"}
	floats := []float64{0, math.Copysign(0, -1), 1.5, math.NaN(), 1e-300, 0.1 + 0.2}
	t0 := time.Date(2026, 11, 9, 13, 0, 0, 0, time.UTC)
	times := []time.Time{t0, t0.In(berlin), t0.Add(time.Hour), t0}
	rng := rand.New(rand.NewSource(35))
	for trial := 0; trial < 40; trial++ {
		const cols = 6
		reused := newStreamRow(cols)
		a, b := newStream(t), newStream(t)
		for r := range 1 + rng.Intn(60) {
			row := make([]any, cols) // boxed anew, as before
			for c := 0; c < cols; c++ {
				style := 1 + rng.Intn(2)
				switch rng.Intn(6) {
				case 0:
					s := texts[rng.Intn(len(texts))]
					reused.text(c, style, s)
					if s != "" {
						row[c] = excelize.Cell{StyleID: style, Value: sanitize.Cell(s)}
					}
				case 1:
					s := texts[rng.Intn(len(texts))]
					reused.str(c, style, s)
					row[c] = excelize.Cell{StyleID: style, Value: sanitize.Cell(s)}
				case 2:
					v := floats[rng.Intn(len(floats))]
					reused.float(c, style, v)
					row[c] = excelize.Cell{StyleID: style, Value: v}
				case 3:
					v := rng.Intn(3) - 1
					reused.int(c, style, v)
					row[c] = excelize.Cell{StyleID: style, Value: v}
				case 4:
					v := times[rng.Intn(len(times))]
					reused.time(c, style, v)
					row[c] = excelize.Cell{StyleID: style, Value: v}
				default:
					reused.blank(c)
				}
			}
			a.add(t, r, reused.values())
			b.add(t, r, row)
		}
		if got, want := a.xml(t), b.xml(t); got != want {
			t.Fatalf("trial %d: streamRow wrote\n%s\nboxed cells\n%s", trial, got, want)
		}
	}
}

// testStream is a one-sheet workbook written with excelize's StreamWriter.
type testStream struct {
	f  *excelize.File
	sw *excelize.StreamWriter
}

func newStream(t *testing.T) *testStream {
	t.Helper()
	f := excelize.NewFile()
	t.Cleanup(func() { f.Close() })
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	return &testStream{f, sw}
}

func (s *testStream) add(t *testing.T, r int, values []any) {
	t.Helper()
	cell, _ := excelize.CoordinatesToCellName(1, r+1)
	if err := s.sw.SetRow(cell, values); err != nil {
		t.Fatal(err)
	}
}

// xml is the sheet's XML as the workbook holds it.
func (s *testStream) xml(t *testing.T) string {
	t.Helper()
	if err := s.sw.Flush(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := z.Open("xl/worksheets/sheet1.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
