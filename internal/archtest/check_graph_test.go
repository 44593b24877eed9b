package archtest

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestCheckCatchesForbiddenEdges runs the check over small import graphs
// written by hand, so a broken check fails here even while the real tree is
// clean. The tables are a cut of docs/ARCHITECTURE.md's; the wanted sentences
// are what a reader of the tables expects for each graph.
func TestCheckCatchesForbiddenEdges(t *testing.T) {
	arch := architecture{
		allowed: map[string]rule{
			"finops":     {tokens: []string{"shopspring/decimal"}},
			"ingest":     {tokens: []string{"finops"}},
			"store":      {tokens: []string{"finops", "ingest", "modernc.org/sqlite"}},
			"amount":     {},
			"analysis":   {tokens: []string{"finops", "amount", "store"}}, // store allowed here: only the layers forbid it
			"report":     {tokens: []string{"finops", "analysis", "amount"}},
			"config":     {tokens: []string{"analysis", "ingest"}},
			"publish":    {tokens: []string{"aws-sdk-go-v2"}},
			"cmd/finops": {everything: true},
		},
		never: map[string][]string{
			"ingest":   {"store", "analysis", "config"},
			"store":    {"analysis"},
			"analysis": {"ingest", "store", "modernc.org/sqlite"},
			"report":   {"ingest", "store"},
			"publish":  {"config"},
		},
	}
	clean := map[string][]string{
		"finops":     {"github.com/shopspring/decimal"},
		"ingest":     {"finops", "strings"}, // the standard library: always allowed
		"store":      {"finops", "ingest", "modernc.org/sqlite"},
		"amount":     nil,
		"analysis":   {"finops", "amount"},
		"report":     {"finops", "analysis", "amount"},
		"config":     {"analysis", "ingest"},
		"publish":    {"github.com/aws/aws-sdk-go-v2/config"},
		"cmd/finops": {"config", "store", "report", "publish"},
	}
	for _, c := range []struct {
		name  string
		edit  func(g map[string][]string)
		never map[string][]string // layers rows added for this case
		want  []string
	}{
		{"clean", func(map[string][]string) {}, nil, nil},
		{"analysis imports store, which its row allows but its layer forbids",
			func(g map[string][]string) { g["analysis"] = append(g["analysis"], "store") },
			nil,
			[]string{
				"analysis depends on ingest (through another package)",
				"analysis depends on modernc.org/sqlite (through another package)",
				"analysis depends on store (through a direct import)",
				// and report, through analysis
				"report depends on ingest (through another package)",
				"report depends on store (through another package)",
			}},
		{"report reaches store through amount",
			func(g map[string][]string) { g["amount"] = []string{"store"} },
			nil,
			[]string{
				"amount imports store, which its row",
				"analysis depends on ingest (through another package)",
				"analysis depends on modernc.org/sqlite (through another package)",
				"analysis depends on store (through another package)",
				"report depends on ingest (through another package)",
				"report depends on store (through another package)",
			}},
		{"ingest imports analysis",
			func(g map[string][]string) { g["ingest"] = append(g["ingest"], "analysis") },
			nil,
			[]string{
				"ingest depends on analysis (through a direct import)",
				"ingest imports analysis, which its row",
				"store depends on analysis (through another package)", // store → ingest → analysis
			}},
		{"ingest reaches store through finops",
			func(g map[string][]string) { g["finops"] = append(g["finops"], "store") },
			nil,
			[]string{
				// store → ingest → finops → store is a cycle go build refuses;
				// the check still names every edge.
				"analysis depends on ingest (through another package)",
				"analysis depends on modernc.org/sqlite (through another package)",
				"analysis depends on store (through another package)",
				"finops imports store, which its row",
				"ingest depends on store (through another package)",
				"report depends on ingest (through another package)",
				"report depends on store (through another package)",
			}},
		{"publish reaches the module's config, not aws-sdk-go-v2/config",
			func(g map[string][]string) { g["publish"] = append(g["publish"], "config") },
			nil,
			[]string{
				"publish depends on config (through a direct import)",
				"publish imports config, which its row",
			}},
		{"a leaf reaches the module",
			func(map[string][]string) {},
			map[string][]string{"config": {module}, "amount": {module}},
			[]string{
				// config → analysis → finops; amount imports nothing.
				"config depends on finops (through another package)",
			}},
		{"a leaf imports one of the module's packages",
			func(g map[string][]string) { g["amount"] = []string{"finops"} },
			map[string][]string{"amount": {module}},
			[]string{
				"amount depends on finops (through a direct import)",
				"amount imports finops, which its row",
			}},
		{"a package without a row",
			func(g map[string][]string) { g["gpu"] = []string{"finops"} },
			nil,
			[]string{"package gpu has no row"}},
		{"stale layers rows",
			func(map[string][]string) {},
			map[string][]string{"ingest/old": {"store"}, "amount": {"stroe", "modernc.org/sqlite"}},
			[]string{
				"the layers table in docs/ARCHITECTURE.md forbids amount to reach stroe",
				"the layers table in docs/ARCHITECTURE.md has a row for ingest/old",
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := map[string][]string{}
			for k, v := range clean {
				g[k] = slices.Clone(v)
			}
			c.edit(g)
			a := architecture{allowed: arch.allowed, never: maps.Clone(arch.never)}
			maps.Copy(a.never, c.never)
			got := a.check(graph(g))
			slices.Sort(got)
			want := c.want
			if len(got) != len(want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
			}
			for i := range want {
				if !strings.HasPrefix(got[i], want[i]) {
					t.Errorf("finding %d: %q, want it to start %q", i, got[i], want[i])
				}
			}
		})
	}
}

// graph turns edges between short names ("store"; a path whose first
// element has a dot is another module's, one without a slash that has no
// edges of its own the standard library's) into what `go list -json` says of
// each package: its imports and every package reachable from them, as full
// import paths.
func graph(edges map[string][]string) []listed {
	full := func(n string) string {
		_, ours := edges[n]
		switch {
		case n == "finops":
			return module
		case ours:
			return module + "/" + n
		}
		return n
	}
	var out []listed
	for _, name := range slices.Sorted(maps.Keys(edges)) {
		p := listed{ImportPath: full(name)}
		for _, imp := range edges[name] {
			p.Imports = append(p.Imports, full(imp))
		}
		seen := map[string]bool{}
		var walk func(n string)
		walk = func(n string) {
			for _, imp := range edges[n] {
				if !seen[imp] {
					seen[imp] = true
					walk(imp)
				}
			}
		}
		walk(name)
		for d := range seen {
			p.Deps = append(p.Deps, full(d))
		}
		slices.Sort(p.Deps)
		out = append(out, p)
	}
	return out
}
