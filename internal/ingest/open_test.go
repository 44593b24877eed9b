package ingest

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Open decompresses by content: a gzip named .csv and a zip named .dat both work.
func TestOpen(t *testing.T) {
	plain := readFile(t, testdata("focus_features.csv"))
	dir := t.TempDir()

	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	f, _ := zw.Create("export/focus.csv")
	f.Write(plain)
	zw.Close()
	var two bytes.Buffer
	zw = zip.NewWriter(&two)
	for _, n := range []string{"a.csv", "b.csv"} {
		f, _ := zw.Create(n)
		f.Write(plain)
	}
	zw.Close()

	files := map[string][]byte{"plain.csv": plain, "gzipped.csv": gz.Bytes(), "zipped.dat": zb.Bytes(), "two.zip": two.Bytes()}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"plain.csv", "gzipped.csv", "zipped.dat"} {
		rc, err := Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := io.ReadAll(rc)
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%s: read %d bytes, %v", name, len(got), err)
		}
		if err := rc.Close(); err != nil {
			t.Errorf("%s: close: %v", name, err)
		}
	}
	if _, err := Open(filepath.Join(dir, "two.zip")); err == nil || !strings.Contains(err.Error(), "2 files") {
		t.Errorf("zip with two CSVs: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.csv")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
	// Only the gzip header: gzip.NewReader itself fails.
	head := filepath.Join(dir, "head.gz")
	os.WriteFile(head, gz.Bytes()[:5], 0o644)
	if _, err := Open(head); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("gzip header only: %v", err)
	}
}

// TestOpenEmptyZip: a zip with no file in it (only its end record, magic
// PK\x05\x06), or with only a folder, says so instead of being read as text.
func TestOpenEmptyZip(t *testing.T) {
	dir := t.TempDir()
	var empty, folder bytes.Buffer
	zip.NewWriter(&empty).Close()
	zw := zip.NewWriter(&folder)
	zw.Create("export/")
	zw.Close()
	for name, b := range map[string][]byte{"empty.zip": empty.Bytes(), "folder.zip": folder.Bytes()} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(p); err == nil || !strings.Contains(err.Error(), name+": empty zip archive") {
			t.Errorf("%s: %v, want an empty zip archive named", name, err)
		}
	}
}
