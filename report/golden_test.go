package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Run `go test ./report -run TestGolden -update` to rewrite the golden files
// after an intended change; review the diff before committing it.
var update = flag.Bool("update", false, "update golden files")

// goldenFileCheck compares got with testdata/<TestName>/<name>, or writes it
// there when -update is set.
func goldenFileCheck(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", t.Name(), name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
