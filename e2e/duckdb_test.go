package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/testenv"
)

// duckDBVersion is the @duckdb/node-api release .ci/run installs.
const duckDBVersion = "1.5.6-r.1"

// duckDBInstall is how a machine gets it (the folder is ignored by git).
const duckDBInstall = "npm install --prefix .cache/duckdb --no-save --no-package-lock @duckdb/node-api@" + duckDBVersion +
	" (or set FINOPS_DUCKDB_NODE to the --prefix folder of such an install)"

// duckDB returns node and the folder @duckdb/node-api was installed into
// (FINOPS_DUCKDB_NODE, else .cache/duckdb in the repository), failing the
// test in CI and skipping it elsewhere when either is missing.
func duckDB(t *testing.T) (node, modules string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node not found on PATH: apt-get install -y nodejs npm, then "+duckDBInstall)
	}
	modules = os.Getenv("FINOPS_DUCKDB_NODE")
	if modules == "" {
		modules = filepath.Join(repoRoot(t), ".cache", "duckdb")
	}
	b, err := os.ReadFile(filepath.Join(modules, "node_modules", "@duckdb", "node-api", "package.json"))
	if err != nil {
		testenv.Missing(t, "@duckdb/node-api not installed in "+modules+": "+duckDBInstall)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != duckDBVersion {
		testenv.Missing(t, "@duckdb/node-api in "+modules+" is "+pkg.Version+", want "+duckDBVersion+": "+duckDBInstall)
	}
	return node, modules
}

// runDuckDB runs the query in queryFile on DuckDB after the setup
// statements and returns the CSV it wrote.
func runDuckDB(t *testing.T, queryFile string, setup ...string) string {
	t.Helper()
	node, modules := duckDB(t)
	out := filepath.Join(t.TempDir(), "result.csv")
	args := append([]string{filepath.Join(repoRoot(t), "scripts", "duckdb-query.mjs"), modules, queryFile, out}, setup...)
	if b, err := exec.CommandContext(t.Context(), node, args...).CombinedOutput(); err != nil {
		t.Fatalf("duckdb-query.mjs %s: %v\n%s", filepath.Base(queryFile), err, b)
	}
	return out
}

// sqlLiteral quotes s as an SQL string.
func sqlLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// docSQL returns the first ```sql block after the line heading in doc.
func docSQL(t *testing.T, doc, heading string) string {
	t.Helper()
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/SCALE.md has no heading %q", heading)
	}
	_, block, ok := strings.Cut(after, "```sql\n")
	if !ok {
		t.Fatalf("docs/SCALE.md: no ```sql block after %q", heading)
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatalf("docs/SCALE.md: the sql block after %q does not end", heading)
	}
	return block
}

// substitution is one documented change to a SCALE.md query, made at
// exactly n places: a dialect difference, or a value the fixture holds
// instead of the example's.
type substitution struct {
	from, to string
	n        int
}

// adapt applies subs to sql, each at exactly its n places, so a query
// changed in SCALE.md fails here rather than run unadapted, or adapted
// where it should not be.
func adapt(t *testing.T, sql string, subs []substitution) string {
	t.Helper()
	for _, s := range subs {
		if n := strings.Count(sql, s.from); n != s.n {
			t.Fatalf("docs/SCALE.md's query holds %q %d times, want %d: update the substitutions in this test and SCALE.md's list of them", s.from, n, s.n)
		}
		sql = strings.ReplaceAll(sql, s.from, s.to)
	}
	return sql
}
