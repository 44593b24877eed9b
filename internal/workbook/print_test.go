package workbook

import (
	"math/rand"
	"regexp"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestPrintScale: by hand, Letter landscape inside 0.4 in margins is
// (11 − 0.8) × 72 = 734.4 pt; 140 units at 7 pt are 980 pt, 734.4 ÷ 980 =
// 0.7494, 74 % (8.14 pt for 11 pt text); 100 units are 700 pt, which fit.
func TestPrintScale(t *testing.T) {
	for _, c := range []struct{ width, want float64 }{{100, 1}, {104.9, 1}, {140, 0.74}, {200, 0.52}} {
		if got := PrintScale(c.width); got != c.want {
			t.Errorf("PrintScale(%v) = %v, want %v", c.width, got, c.want)
		}
	}
	if BodyFontPt*PrintScale(MaxPrintWidth) < MinPrintedFontPt {
		t.Errorf("MaxPrintWidth %v prints at %v", MaxPrintWidth, BodyFontPt*PrintScale(MaxPrintWidth))
	}
}

var areaRE = regexp.MustCompile(`^'[^']+'!\$A\$1:\$([A-Z]+)\$(\d+)$`)

// TestPrintColumnsGenerated: GENERATED sheets of 1–30 columns 1–60 units
// wide: the print area is the longest prefix of at most cols columns whose
// widths add up to MaxPrintWidth or less (the first column always), and
// covers rows 1..lastRow. The prefix is recomputed here by a running sum.
func TestPrintColumnsGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	for i := range 300 {
		f := excelize.NewFile()
		n := 1 + rng.Intn(30)
		widths := make([]float64, n)
		for c := range widths {
			widths[c] = float64(1 + rng.Intn(60))
			name, _ := excelize.ColumnNumberToName(c + 1)
			if err := f.SetColWidth("Sheet1", name, name, widths[c]); err != nil {
				t.Fatal(err)
			}
		}
		cols, lastRow := 1+rng.Intn(n), 1+rng.Intn(1000)
		got, err := PrintColumns(f, "Sheet1", cols, lastRow)
		if err != nil {
			t.Fatal(err)
		}
		want, sum := 1, widths[0]
		for want < cols && sum+widths[want] <= MaxPrintWidth {
			sum += widths[want]
			want++
		}
		area := ""
		for _, dn := range f.GetDefinedName() {
			if dn.Name == "_xlnm.Print_Area" && dn.Scope == "Sheet1" {
				area = dn.RefersTo
			}
		}
		m := areaRE.FindStringSubmatch(area)
		lastCol, _ := excelize.ColumnNumberToName(want)
		if got != want || m == nil || m[1] != lastCol || m[2] != strconv.Itoa(lastRow) {
			t.Errorf("case %d: widths %v, cols %d: %d columns, area %q; want %d, A1:%s%d", i, widths, cols, got, area, want, lastCol, lastRow)
		}
		f.Close()
	}
}

// TestNoPrint: the print area is the one empty cell named, and no title row.
func TestNoPrint(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	if err := PrintSetup(f, "Sheet1"); err != nil {
		t.Fatal(err)
	}
	if err := NoPrint(f, "Sheet1", 7); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, dn := range f.GetDefinedName() {
		got[dn.Name] = dn.RefersTo
	}
	if want := "'Sheet1'!$G$1:$G$1"; got["_xlnm.Print_Area"] != want || got["_xlnm.Print_Titles"] != "" {
		t.Errorf("defined names %v, want print area %s and no print titles", got, want)
	}
}
