package archtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// listed is the part of `go list -json`'s answer the check reads: Imports
// are the direct imports, Deps every package reached through them.
type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// check returns one sentence for each package without a row, each direct
// import its row does not allow and each dependency, direct or not, that its
// layer forbids.
func (a architecture) check(pkgs []listed) []string {
	out := a.stale()
	for _, p := range pkgs {
		name := rowName(p.ImportPath)
		if name == "internal/archtest" {
			continue
		}
		r, ok := a.allowed[name]
		if !ok {
			out = append(out, fmt.Sprintf("package %s has no row in docs/ARCHITECTURE.md", name))
			continue
		}
		if !r.everything {
			for _, imp := range p.Imports {
				if !a.allows(r, imp) {
					out = append(out, fmt.Sprintf("%s imports %s, which its row in docs/ARCHITECTURE.md does not allow", name, rowName(imp)))
				}
			}
		}
		// One finding per forbidden name: modernc.org/sqlite brings
		// its subpackages along, and one import to remove is the fix.
		for _, tok := range a.never[name] {
			for _, dep := range p.Deps {
				if a.names(dep, tok) {
					out = append(out, fmt.Sprintf("%s depends on %s (through %s), which the layers table in docs/ARCHITECTURE.md forbids: "+
						"move what it needs into a package both may import (records into finops), or remove the import "+
						"(`go list -deps -f '{{.ImportPath}}: {{.Imports}}' %s` shows the chain)",
						name, rowName(dep), via(p, dep), p.ImportPath))
					break
				}
			}
		}
	}
	return out
}

// stale names the layers rows that check nothing: a package without a row
// in the packages table (renamed or removed), or a forbidden name that is
// neither such a package nor another module's path (it has a dot), which
// would match no dependency ever.
func (a architecture) stale() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(a.never)) {
		if _, ok := a.allowed[name]; !ok {
			out = append(out, fmt.Sprintf("the layers table in docs/ARCHITECTURE.md has a row for %s, which the packages table does not have", name))
		}
		for _, tok := range a.never[name] {
			first, _, _ := strings.Cut(tok, "/")
			if _, ok := a.allowed[tok]; !ok && !strings.Contains(first, ".") {
				out = append(out, fmt.Sprintf("the layers table in docs/ARCHITECTURE.md forbids %s to reach %s, which is no package of the packages table and no module path", name, tok))
			}
		}
	}
	return out
}

// via says whether dep is a direct import: a forbidden dependency reached
// through a third package is fixed there, not here.
func via(p listed, dep string) string {
	for _, imp := range p.Imports {
		if imp == dep {
			return "a direct import"
		}
	}
	return "another package"
}

// allows: the standard library always; otherwise what names allows.
func (a architecture) allows(r rule, imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	if !strings.Contains(first, ".") {
		return true
	}
	for _, tok := range r.tokens {
		if a.names(imp, tok) {
			return true
		}
	}
	return false
}

// names reports whether a table's name tok means the package imp: the
// module's path means every package of this module (a leaf such as config
// reaches none); a name with a row is that package of this module exactly
// (`finops` is the module root), so `config` never means
// aws-sdk-go-v2/config; any other name is another module's package whose
// path contains it (`excelize`, `prometheus/client_golang`).
func (a architecture) names(imp, tok string) bool {
	internal := imp == module || strings.HasPrefix(imp, module+"/")
	if tok == module {
		return internal
	}
	if _, isRow := a.allowed[tok]; isRow || internal {
		return internal && rowName(imp) == tok
	}
	return strings.Contains(imp, tok)
}

// rowName is a package's name in the tables: its path in the module, and
// finops for the module root.
func rowName(importPath string) string {
	if importPath == module {
		return "finops"
	}
	return strings.TrimPrefix(importPath, module+"/")
}
