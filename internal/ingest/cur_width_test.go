package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// writeCSV renders records as a CSV file, as a spreadsheet or export would.
func writeCSV(t *testing.T, recs ...[]string) string {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func parseCUR(in, name string, maxBad int) (*Summary, *recSink, error) {
	sink := &recSink{}
	sum, err := Parse(context.Background(), strings.NewReader(in), Options{Name: name, MaxBadRows: maxBad}, sink)
	return sum, sink, err
}

// TestCURMissingMiddleField is issue 34's damaged CUR line: koku's
// 2023-06-01.csv (201 columns, three rows) with three fields of its second
// row dropped between lineItem/UsageStartDate and pricing/publicOnDemandRate,
// so every later column would shift. The row is a bad row naming the file,
// the line and both counts, and counts against --max-bad-rows.
func TestCURMissingMiddleField(t *testing.T) {
	hdr, rows := csvTable(t, "aws/2023-06-01.csv")
	if len(hdr) != 201 || len(rows) != 3 {
		t.Fatalf("fixture changed: %d columns, %d rows", len(hdr), len(rows))
	}
	bad := slices.Delete(slices.Clone(rows[1]), 35, 38) // 198 fields
	in := writeCSV(t, hdr, rows[0], bad, rows[2])

	_, _, err := parseCUR(in, "cur.csv", 0)
	wantErrParts(t, err, "cur.csv:3", "198 fields, header has 201", "a field is missing")

	sum, sink, err := parseCUR(in, "cur.csv", 1)
	if err != nil {
		t.Fatalf("with --max-bad-rows 1: %v", err)
	}
	// Lines 2 and 4 are read; line 3 (the header is line 1) is the bad row.
	if sum.Rows != 2 || len(sink.lines) != 2 || len(sum.Rejected) != 1 || sum.Rejected[0].Line != 3 {
		t.Fatalf("rows %d, rejected %v; want 2 rows and line 3 rejected", sum.Rows, sum.Rejected)
	}
	if got := sink.lines[1].Line; got != 4 {
		t.Errorf("second line read is line %d, want 4", got)
	}
}

// TestCURShortTail: a header's optional tail (empty names, tag and
// cost-category columns) may be left off whole, never in part.
// koku's test_cur.csv is the real file of that shape: 131 names ending in
// costCategory/CostCenter, 19 rows of 130 fields.
func TestCURShortTail(t *testing.T) {
	sum, _ := mustParse(t, "aws/test_cur.csv", Options{})
	if sum.Rows != 19 || len(sum.Rejected) != 0 {
		t.Fatalf("test_cur.csv: %d rows, rejected %v; want all 19 read", sum.Rows, sum.Rejected)
	}
	hdr, rows := csvTable(t, "aws/test_cur.csv")
	cut := rows[0][:129] // one short of the 130 the header allows
	_, _, err := parseCUR(writeCSV(t, hdr, rows[0], cut), "cut.csv", 0)
	wantErrParts(t, err, "cut.csv:3", "129 fields, header has 131", `last 1 optional columns, from "costCategory/CostCenter" on`, "130 fields")

	// A header with trailing commas (three columns without a name): rows of
	// the named 201 fields and of the full 204 are read; 202 is not.
	h2, r2 := csvTable(t, "aws/2023-06-01.csv")
	wide := append(slices.Clone(h2), "", "", "")
	full := append(slices.Clone(r2[1]), "", "", "")
	in := writeCSV(t, wide, r2[0], full, r2[2])
	sum, _, err = parseCUR(in, "trailing.csv", 0)
	if err != nil || sum.Rows != 3 {
		t.Fatalf("trailing empty columns: %v (%d rows)", err, sum.Rows)
	}
	part := append(slices.Clone(r2[1]), "")
	_, _, err = parseCUR(writeCSV(t, wide, r2[0], part), "part.csv", 0)
	wantErrParts(t, err, "part.csv:3", "202 fields, header has 204")
}

// TestCURWidthGenerated checks the invariant on generated files: random
// CUR-like headers (the four columns the reader needs at random places among
// filler columns, sometimes a tail of tag columns or unnamed ones) and rows
// with fields deleted or inserted at random positions, or the optional tail
// cut off. A row is refused for its width exactly when its field count is
// neither the header's nor the header without its tail; the generator knows
// each row's count, so the oracle does not ask the parser.
func TestCURWidthGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	for c := range 300 {
		n := 9 + rng.IntN(40) // room for the four needed columns before a tail of up to 4
		tail := 0
		if rng.IntN(2) == 0 {
			tail = 1 + rng.IntN(4)
		}
		hdr := make([]string, n)
		for i := range hdr {
			hdr[i] = fmt.Sprintf("product/x%d", i)
		}
		for i := n - tail; i < n; i++ {
			hdr[i] = fmt.Sprintf("resourceTags/user:t%d", i)
			if rng.IntN(3) == 0 {
				hdr[i] = ""
			}
		}
		req := rng.Perm(n - tail)[:4]
		hdr[req[0]], hdr[req[1]] = "lineItem/LineItemType", "lineItem/UnblendedCost"
		hdr[req[2]], hdr[req[3]] = "lineItem/UsageStartDate", "lineItem/UsageEndDate"

		recs := [][]string{hdr}
		widthBad := map[int]bool{} // line → refused for its width
		for r := range 1 + rng.IntN(12) {
			row := make([]string, n)
			for i := range row {
				row[i] = fmt.Sprintf("v%d", rng.IntN(1000)) // never empty: an extra cell always holds something
			}
			row[req[0]], row[req[1]] = "Usage", fmt.Sprintf("%d.%02d", rng.IntN(100), rng.IntN(100))
			row[req[2]], row[req[3]] = "2026-11-01T00:00:00Z", "2026-11-01T01:00:00Z"
			switch k := rng.IntN(4); {
			case k == 0 && tail > 0:
				row = row[:n-tail-rng.IntN(2)] // the whole tail, or one field more
			case k <= 1:
				for range 1 + rng.IntN(3) {
					if rng.IntN(2) == 0 && len(row) > 1 {
						i := rng.IntN(len(row))
						row = slices.Delete(row, i, i+1)
					} else {
						i := rng.IntN(len(row) + 1)
						row = slices.Insert(row, i, "ins")
					}
				}
			}
			line := r + 2
			widthBad[line] = len(row) != n && len(row) != n-tail
			recs = append(recs, row)
		}
		name := fmt.Sprintf("gen%d.csv", c)
		sum, _, err := parseCUR(writeCSV(t, recs...), name, len(recs))
		if err != nil && !strings.Contains(err.Error(), "not one row could be read") {
			t.Fatalf("case %d: %v", c, err)
		}
		got := map[int]bool{}
		for _, e := range sum.Rejected {
			if strings.Contains(e.Msg, "fields, header has") || strings.Contains(e.Msg, "quote values that contain commas") {
				got[e.Line] = true
				if e.File != name {
					t.Errorf("case %d: error names file %q", c, e.File)
				}
			}
		}
		for line, bad := range widthBad {
			if got[line] != bad {
				t.Errorf("case %d line %d: %d fields, header %d (tail %d): refused for width %v, want %v (%q)",
					c, line, len(recs[line-1]), n, tail, got[line], bad, hdr)
			}
		}
	}
}
