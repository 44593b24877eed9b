package ingest

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenCounted: the reads reported add up to the file's own size (the
// compressed size for gzip), the total a progress bar divides by, while
// the reader still yields the decompressed bytes.
func TestOpenCounted(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "ingest")
	for _, name := range []string{"focus_sample.csv", "aws/test_cur.csv.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(root, name)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			var counted int64
			rc, err := OpenCounted(path, func(n int) { counted += int64(n) })
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := Open(path) // the same bytes without counting
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			want, err := io.ReadAll(plain)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("OpenCounted read %d bytes, Open %d", len(got), len(want))
			}
			if counted != fi.Size() {
				t.Errorf("counted %d bytes, the file has %d", counted, fi.Size())
			}
		})
	}
}
