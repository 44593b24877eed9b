package workbook

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestZipWriterRoundTrip: every part reads back, through archive/zip's reader
// (which checks each part's CRC and sizes), as exactly the bytes written —
// whatever the part's size against the chunk (empty, one byte, a chunk
// exactly, chunks and a bit) and however the writes are cut. The data is XML-
// like text with repeats longer than a chunk's dictionary can reach and
// random bytes, so back-references across chunk boundaries happen: a chunk
// deflated against the wrong dictionary, or chunks written out of order, read
// back as other bytes.
func TestZipWriterRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>i-0f%015d</t></is></c><c><v>%d</v></c></row>`,
				i, i, rng.IntN(250), rng.IntN(1000))
		}
		return b.Bytes()[:n]
	}
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	parts := []struct {
		name  string
		data  []byte
		write int // bytes per Write call
	}{
		{"empty.xml", nil, 1},
		{"one.xml", []byte("x"), 1},
		{"chunk.xml", text(zipChunk), 4096},
		{"sheet.xml", text(3*zipChunk + 12345), 32 << 10},
		{"odd-writes.xml", text(zipChunk + 77), 999_983}, // writes straddle the chunk boundary
		{"random.bin", random(2*zipChunk + 5), 1 << 20},
		{"small.xml", text(300), 7},
	}
	var out bytes.Buffer
	zw := NewZipWriter(&out)
	for _, p := range parts {
		w, err := zw.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		for rest := p.data; len(rest) > 0; {
			k := min(p.write, len(rest))
			if n, err := w.Write(rest[:k]); err != nil || n != k {
				t.Fatalf("%s: Write = %d, %v", p.name, n, err)
			}
			rest = rest[k:]
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != len(parts) {
		t.Fatalf("%d parts read back, want %d", len(zr.File), len(parts))
	}
	for i, f := range zr.File {
		p := parts[i]
		if f.Name != p.name || f.Method != zip.Deflate {
			t.Errorf("part %d: %s method %d, want %s deflated", i, f.Name, f.Method, p.name)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc) // fails on a CRC or size mismatch
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if !bytes.Equal(got, p.data) {
			t.Errorf("%s: read back %d bytes that differ from the %d written", p.name, len(got), len(p.data))
		}
	}
}

// TestZipWriterWorkbook: a workbook saved through NewZipWriter opens in
// excelize with its cells, and is about as small as excelize's own writer
// makes it (same deflate level; the chunks' restarts cost little).
func TestZipWriterWorkbook(t *testing.T) {
	build := func() *excelize.File {
		f := excelize.NewFile()
		sw, err := f.NewStreamWriter("Sheet1")
		if err != nil {
			t.Fatal(err)
		}
		for r := 1; r <= 40_000; r++ {
			cell, _ := excelize.CoordinatesToCellName(1, r)
			if err := sw.SetRow(cell, []any{fmt.Sprintf("i-0f%015d", r%250), r, float64(r) / 7}); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			t.Fatal(err)
		}
		return f
	}
	var plain, par bytes.Buffer
	f := build()
	if err := f.Write(&plain); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f = build()
	cw := &countingWriter{w: &par}
	if err := Write(f, cw); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Straight to the destination as parts are deflated: excelize's own path
	// hands it the whole archive in one write at the end.
	if cw.writes < 2 || cw.n != int64(par.Len()) {
		t.Errorf("%d writes of %d bytes in all: want the archive written as it is made", cw.writes, cw.n)
	}
	g, err := excelize.OpenReader(&par)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, c := range []struct{ cell, want string }{{"A1", "i-0f000000000000001"}, {"B40000", "40000"}, {"A40000", "i-0f000000000000000"}} {
		if got, _ := g.GetCellValue("Sheet1", c.cell); got != c.want {
			t.Errorf("%s = %q, want %q", c.cell, got, c.want)
		}
	}
	if ratio := float64(par.Len()) / float64(plain.Len()); ratio > 1.05 {
		t.Errorf("workbook is %d bytes through NewZipWriter, %d through excelize's: %.2f×, want ≤ 1.05×", par.Len(), plain.Len(), ratio)
	}
}

type countingWriter struct {
	w      io.Writer
	writes int
	n      int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// TestCRC32Combine: the CRC of a || b from the CRCs of a and b and b's
// length is the CRC of the concatenation computed directly, over generated
// a and b of random lengths (0 included, across 2^k boundaries).
func TestCRC32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 7))
	for i := range 300 {
		a := make([]byte, rng.IntN(3000))
		b := make([]byte, []int{0, 1, 7, 8, 9, 255, 256, 4096, rng.IntN(70000)}[i%9])
		for j := range a {
			a[j] = byte(rng.Uint32())
		}
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		want := crc32.ChecksumIEEE(append(append([]byte{}, a...), b...))
		if got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), uint64(len(b))); got != want {
			t.Fatalf("case %d (%d+%d bytes): %08x, want %08x", i, len(a), len(b), got, want)
		}
	}
}
