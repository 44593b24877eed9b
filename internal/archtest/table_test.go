package archtest

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

// architecture is what docs/ARCHITECTURE.md says of each package: its row of
// the packages table and its row, if any, of the layers table.
type architecture struct {
	allowed map[string]rule
	never   map[string][]string // package → the names it must not reach
}

type rule struct {
	everything bool
	tokens     []string // the backquoted names of the "may import" column
}

// The header cells that tell the two tables apart.
const (
	packagesHeader = "| package | its job | may import |"
	layersHeader   = "| package | never reaches |"
)

var backquoted = regexp.MustCompile("`([^`]+)`")

// readArchitecture parses the rows "| `pkg` | its job | may import |" and
// "| `pkg` | never reaches |"; a row's package is the first backquoted name of
// its first cell, so the cell may go on to explain it ("`finops` (the module
// root)").
func readArchitecture(t *testing.T, path string) architecture {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := architecture{allowed: map[string]rule{}, never: map[string][]string{}}
	table := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			table = ""
			continue
		}
		if table == "" {
			table = line
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		name := backquoted.FindStringSubmatch(cells[1])
		if name == nil {
			continue // the separator row
		}
		last := cells[len(cells)-2]
		var tokens []string
		for _, m := range backquoted.FindAllStringSubmatch(last, -1) {
			tokens = append(tokens, m[1])
		}
		switch table {
		case packagesHeader:
			a.allowed[name[1]] = rule{everything: strings.TrimSpace(last) == "everything", tokens: tokens}
		case layersHeader:
			a.never[name[1]] = tokens
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(a.allowed) < 10 || len(a.never) < 3 {
		t.Fatalf("read %d package rows and %d layer rows from %s: a table's header (%q, %q) or shape changed",
			len(a.allowed), len(a.never), path, packagesHeader, layersHeader)
	}
	return a
}
