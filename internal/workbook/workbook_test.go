package workbook

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// TestSetCell: each type lands as the cell a reader expects; what Excel
// cannot show (NaN, infinities) and what is unknown (nil) stay blank rather
// than becoming text or zero.
func TestSetCell(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	sh := "Sheet1"
	shanghai := time.FixedZone("CST", 8*3600)
	v := 2.5
	for _, tt := range []struct {
		cell string
		v    any
		want string
	}{
		{"A1", "=1+1", "'=1+1"}, // a formula from a bill stays text
		{"A2", true, "yes"},
		{"A3", 42, "42"},
		{"A4", 1.25, "1.25"},
		{"A5", math.NaN(), ""},
		{"A6", math.Inf(1), ""},
		{"A7", (*float64)(nil), ""},
		{"A8", &v, "2.5"},
		{"A9", nil, ""},
		{"A10", time.Time{}, ""},
	} {
		if _, err := SetCell(f, sh, tt.cell, tt.v, shanghai); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.GetCellValue(sh, tt.cell); got != tt.want {
			t.Errorf("%v → %s = %q, want %q", tt.v, tt.cell, got, tt.want)
		}
	}
	// 2026-11-30 00:30 UTC is 08:30 in Shanghai: Excel serial 46356 + 8.5/24.
	if _, err := SetCell(f, sh, "B1", time.Date(2026, 11, 30, 0, 30, 0, 0, time.UTC), shanghai); err != nil {
		t.Fatal(err)
	}
	got, _ := f.GetCellValue(sh, "B1", excelize.Options{RawCellValue: true})
	if want := 46356 + 8.5/24; got == "" || math.Abs(mustFloat(t, got)-want) > 1e-6 {
		t.Errorf("instant = %s, want %v", got, want)
	}
	if _, err := SetCell(f, sh, "C1", struct{}{}, nil); err == nil {
		t.Error("an unsupported type was written")
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
