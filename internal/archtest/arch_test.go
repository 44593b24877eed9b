// Package archtest holds the test that keeps docs/ARCHITECTURE.md's tables
// of packages true: every package of the module has a row, imports only what
// its row's "may import" column names (the standard library always), and
// never reaches, through any chain of imports, what the layers table forbids.
package archtest

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/finops-oss/finops"

// TestImportsFollowArchitecture reads the tables and `go list`'s imports and
// transitive dependencies (test files left out: tests may reach further) and
// names every import a row does not allow, every dependency the layers
// forbid and every package without a row.
func TestImportsFollowArchitecture(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	arch := readArchitecture(t, filepath.Join(root, "docs", "ARCHITECTURE.md"))
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	for _, v := range arch.check(pkgs) {
		t.Error(v)
	}
}
