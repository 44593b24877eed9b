package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/store"
)

// TestWatchTailsSpoolRename follows the NVML collector's hour file: a pass
// reads the in-progress .csv.part, the collector renames it to .csv at the
// hour's end and goes on appending (its last rows), and the next pass reads
// only the rows after the .part's cursor. Offsets are counted by hand from
// nvmlHeader's 60 bytes and nvmlRow's 71 (24 of timestamp, 47 of the rest
// with the newline); each minute of gpu-b must be stored once.
func TestWatchTailsSpoolRename(t *testing.T) {
	e, log, spool := newTailEnv(t)
	const h, r = 60, 71
	if len(nvmlHeader) != h || len(nvmlRow(0)) != r {
		t.Fatalf("header %d, row %d bytes: the offsets below are counted for %d and %d", len(nvmlHeader), len(nvmlRow(0)), h, r)
	}
	// gpu-a's log is there, so that the pass has no missing source.
	appendFile(t, log, smiHeader+smiRows(0, 1, 95))
	part := filepath.Join(spool, "nvml-gpu-b-20261130T00Z.csv.part")
	csv := strings.TrimSuffix(part, ".part")

	for _, step := range []struct {
		name    string
		change  func()
		at      int
		file    string    // the file the pass reads
		want    *tailLine // nil: nothing new read
		minutes int       // gpu-b's minutes stored after the pass
	}{
		{"the .part being written: read whole", func() { appendFile(t, part, nvmlRow(1)+nvmlRow(2)) },
			3, filepath.Base(part), &tailLine{3, 0, h + 3*r, true}, 3},
		{"renamed to .csv with two rows more: only those, from the .part's cursor", func() {
			if err := os.Rename(part, csv); err != nil {
				t.Fatal(err)
			}
			appendFile(t, csv, nvmlRow(3)+nvmlRow(4))
		}, 5, filepath.Base(csv), &tailLine{2, h + 3*r, h + 5*r, false}, 5},
		{"nothing new: nothing read", func() {}, 6, filepath.Base(csv), nil, 5},
	} {
		step.change()
		_, out := e.pass(t, watchAt(0, step.at), 0)
		checkTailStep(t, e, step.name, out, "gpu-b", step.file, step.want, step.minutes)
	}
	// The .part's cursor went with the rename: one cursor for the hour, at
	// the .csv's end.
	st, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs, err := st.FileCursors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cs[part]; ok {
		t.Errorf("the .part's cursor outlived its rename: %+v", c)
	}
	if c := cs[csv]; c.Offset != h+5*r {
		t.Errorf("the .csv's cursor at %d, want %d", c.Offset, h+5*r)
	}
}
