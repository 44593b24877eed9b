package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxComplexity is the house rule of issue #36: no function of the module's
// code has a cyclomatic complexity over 25. A function that grows past it
// is split into named steps, each a small function saying why it exists,
// because a 100-branch function can only be read, reviewed and tested as
// a whole.
const maxComplexity = 25

// TestComplexityAtMost25 computes every function's cyclomatic complexity
// over the module's non-generated Go files, test files included, by
// gocyclo v0.6.0's rules (complexity_count_test.go), and names each one
// over maxComplexity with its file, line and complexity. There is no
// list of exceptions: the last ones were split when the rule came in.
func TestComplexityAtMost25(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := moduleComplexities(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(funcs) < 1000 {
		// A walk that found almost nothing proves nothing: the module has
		// thousands of functions.
		t.Fatalf("found only %d functions under %s: is the walk looking in the right place?", len(funcs), root)
	}
	for _, f := range funcs {
		if f.complexity > maxComplexity {
			t.Errorf("%s: %s %s has cyclomatic complexity %d, over %d: split it into named steps (docs/ARCHITECTURE.md)", f.pos, f.pkg, f.name, f.complexity, maxComplexity)
		}
	}
}

// funcComplexity is one function's (or package-level function literal's)
// complexity and where it starts.
type funcComplexity struct {
	pkg, name  string
	pos        string
	complexity int
}

// moduleComplexities walks root as gocyclo walks a directory (testdata,
// vendor and folders starting with "." or "_" skipped) and measures every
// .go file that is not generated code.
func moduleComplexities(root string) ([]funcComplexity, error) {
	var out []funcComplexity
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("archtest: parse %s: %w", path, err)
		}
		if ast.IsGenerated(file) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		for _, fn := range fileComplexities(file) {
			p := fset.Position(fn.node.Pos())
			out = append(out, funcComplexity{
				pkg:        file.Name.Name,
				name:       fn.name,
				pos:        fmt.Sprintf("%s:%d", rel, p.Line),
				complexity: complexity(fn.node),
			})
		}
		return nil
	})
	return out, err
}
