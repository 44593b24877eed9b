// Package golden compares test output with golden files under
// testdata/<TestName>/ (infracost style). After an intended change, rewrite
// them with `go test ./PKG -run TestName -update` and review the diff before
// committing. Only tests import it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A package variable because the flag must be registered once per test
// binary, before flag.Parse: every package's golden tests share it.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing")

// Check compares got with testdata/<TestName>/<name>, or writes it there
// with -update.
func Check(t testing.TB, name string, got []byte) {
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
		t.Fatalf("read golden file (run the test with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run the test with -update if the change is intended)\n%s",
			path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
			shown++
		}
	}
	return b.String()
}
