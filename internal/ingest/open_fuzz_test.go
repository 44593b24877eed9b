package ingest

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/gpu"
)

// FuzzOpen: Open sniffs gzip and zip by their magic bytes and reads what a
// delivery holds. Any file gives a reader or an error naming the file, and
// reading fails, if at all, with an error that says the archive is damaged.
func FuzzOpen(f *testing.F) {
	plain := readFileF(f, testdata("focus_features.csv"))
	plain = plain[:min(len(plain), 1024)]
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	one := func(names ...string) []byte {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for _, n := range names {
			zf, _ := zw.Create(n)
			zf.Write(plain)
		}
		zw.Close()
		return b.Bytes()
	}
	f.Add(plain)
	f.Add(gz.Bytes())
	f.Add(gz.Bytes()[:gz.Len()/2])
	f.Add(one("export/focus.csv"))
	f.Add(one("a.csv", "b.csv"))
	f.Add(one("readme.txt", ".hidden.csv"))
	f.Add(readFileF(f, testdata("bad/truncated.csv.gz")))
	f.Add([]byte("PK\x03\x04"))
	f.Add([]byte{0x1f, 0x8b})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		name := filepath.Join(dir, "fuzz-delivery.csv")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rc, err := Open(name)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("Open error does not name the file: %v", err)
			}
			return
		}
		// A gzip bomb inflates ~1000×: a megabyte is enough to read through
		// any damage a 16 KB input can hold.
		n, err := io.Copy(io.Discard, io.LimitReader(rc, 1<<20))
		if err != nil && !strings.Contains(err.Error(), "truncated or corrupt") {
			t.Fatalf("read error does not say the archive is damaged: %v", err)
		}
		if err == nil && !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) && !bytes.HasPrefix(data, []byte("PK\x03\x04")) && n != int64(len(data)) {
			t.Fatalf("plain file read as %d bytes, it has %d", n, len(data))
		}
		// Close repeats a failed read's error; after a clean read it has none.
		if cerr := rc.Close(); cerr != nil && err == nil && n < 1<<20 {
			t.Fatalf("close after a clean read: %v", cerr)
		}
	})
}

// FuzzSplitCapture cuts the --query-gpu sections out of nvidia_gpu_exporter
// capture files and parses each as an nvidia-smi log, as finops ingest does.
// Sections start on a "timestamp" header line after it, in file order.
func FuzzSplitCapture(f *testing.F) {
	for _, n := range []string{"linux-x86_64__nvidia-l40s__595.80.txt", "linux-x86_64__nvidia-h100-mig__590.48.01.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "telemetry", n))
		if err != nil {
			f.Fatal(err)
		}
		// The query-gpu section with its banner, and a stretch of the other
		// output before it; a whole capture is 130 KB.
		i := bytes.Index(b, []byte("# idle :: query-gpu (csv"))
		i = bytes.LastIndexByte(b[:i-1], '\n') + 1
		f.Add(b[i:min(len(b), i+8192)])
		f.Add(b[max(0, i-2048):min(len(b), i+2048)])
	}
	f.Add([]byte("# x :: query-gpu (csv)\n# $ nvidia-smi --query-gpu=timestamp --format=csv\n####\ntimestamp, utilization.gpu [%]\n2026/07/14 08:12:38.696, 5 %\n"))
	cat := gpu.NewCatalog()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 32<<10 {
			return
		}
		secs, err := SplitCapture(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("SplitCapture: %v", err) // an in-memory reader cannot fail, and lines are < 4 MB
		}
		last := 0
		for _, s := range secs {
			if s.Line <= last || !bytes.HasPrefix(s.CSV, []byte("timestamp")) || s.CSV[len(s.CSV)-1] != '\n' {
				t.Fatalf("section %+v after line %d", s, last)
			}
			last = s.Line
			sink := &countSink{}
			opt := Options{Name: "capture.txt#" + s.Name, Format: FormatNvidiaSMI, Host: "h", Catalog: cat, MaxBadRows: 1 << 20}
			sum, err := Parse(t.Context(), bytes.NewReader(s.CSV), opt, sink)
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.File != opt.Name {
					t.Fatalf("error does not name the section: %v", err)
				}
				continue
			}
			if sum.Rows != sink.n {
				t.Fatalf("summary says %d rows, sink got %d", sum.Rows, sink.n)
			}
		}
	})
}
