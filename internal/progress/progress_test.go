package progress

import (
	"bytes"
	"strings"
	"testing"
)

// TestBarsOff: with the bars off every bar is nil, does nothing, and lines
// go straight to their writer.
func TestBarsOff(t *testing.T) {
	var w bytes.Buffer
	b := Bars{W: &w}
	bar := b.File("a.csv", 10)
	if bar != nil || b.Bytes("a.csv", "sha256", 10) != nil || b.Steps("lab", 3, "days") != nil {
		t.Fatal("a bar while off")
	}
	bar.Add(5)
	bar.Row()
	bar.Done()
	s := b.Sheets("workbook")
	s.Sheet("Summary", 1, 2)
	s.Done()
	var out bytes.Buffer
	if bar.Above(&out) != &out {
		t.Error("Above of a nil bar is not its writer")
	}
	if w.Len() != 0 {
		t.Errorf("drew %q while off", w.String())
	}
}

// TestBarsOn: a file's bar shows its rows, a label with an escape sequence
// reaches the terminal without it, a line printed above the bar clears it
// first, and the sheets' bar counts sheets.
func TestBarsOn(t *testing.T) {
	var w bytes.Buffer
	b := Bars{W: &w, On: true}
	bar := b.File("bill\x1b[31m.csv", 100)
	for range 3 {
		bar.Row()
	}
	bar.Add(50)
	var above bytes.Buffer
	if _, err := bar.Above(&above).Write([]byte("note\n")); err != nil || above.String() != "note\n" {
		t.Errorf("above: %q, %v", above.String(), err)
	}
	bar.Done()
	if !strings.Contains(w.String(), "3 rows") || strings.Contains(w.String(), "\x1b[31m") {
		t.Errorf("file bar drew %q", w.String())
	}
	w.Reset()
	s := b.Sheets("workbook")
	s.Sheet("Summary", 1, 2)
	s.Sheet("Lines", 2, 2)
	s.Done()
	if !strings.Contains(w.String(), "workbook") || !strings.Contains(w.String(), "sheets") {
		t.Errorf("sheets bar drew %q", w.String())
	}
}
