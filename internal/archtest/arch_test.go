// Package archtest holds the test that keeps docs/ARCHITECTURE.md's table of
// packages true: every package of the module has a row, and imports only what
// its row's "may import" column names (the standard library always).
package archtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/finops-oss/finops"

// TestImportsFollowArchitecture reads the table and `go list`'s imports (test
// files left out: tests may reach further) and names every import a row does
// not allow and every package without a row.
func TestImportsFollowArchitecture(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	allowed := readTable(t, filepath.Join(root, "docs", "ARCHITECTURE.md"))
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if name == "internal/archtest" {
			continue
		}
		rule, ok := allowed[name]
		if !ok {
			t.Errorf("package %s has no row in docs/ARCHITECTURE.md", name)
			continue
		}
		if rule.everything {
			continue
		}
		for _, imp := range p.Imports {
			if !rule.allows(imp) {
				t.Errorf("%s imports %s, which its row in docs/ARCHITECTURE.md does not allow", name, imp)
			}
		}
	}
}

type rule struct {
	everything bool
	tokens     []string // the backquoted names of the "may import" column
}

// allows: the standard library always; a package of this module when the row
// names it exactly; another module's package when its path contains a name
// the row gives (`excelize`, `prometheus/client_golang`).
func (r rule) allows(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	if !strings.Contains(first, ".") {
		return true
	}
	internal := strings.HasPrefix(imp, module+"/")
	for _, tok := range r.tokens {
		if internal && imp == module+"/"+tok || !internal && strings.Contains(imp, tok) {
			return true
		}
	}
	return false
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// readTable parses the rows "| `pkg` | its job | may import |".
func readTable(t *testing.T, path string) map[string]rule {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]rule{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		may := cells[len(cells)-2]
		r := rule{everything: strings.TrimSpace(may) == "everything"}
		for _, m := range backquoted.FindAllStringSubmatch(may, -1) {
			r.tokens = append(r.tokens, m[1])
		}
		out[name] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("read %d rows from %s: the table's shape changed", len(out), path)
	}
	return out
}
