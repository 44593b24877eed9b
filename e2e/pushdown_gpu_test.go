package e2e

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/golden"
	"github.com/finops-oss/finops/internal/gpu"
)

// pushdownTypes is every instance-type spelling gpu.Catalog.Instance
// recognises by name: the catalog's types, and its Azure sizes without
// their "Standard_" prefix (Instance tries the prefix). Lower case, sorted.
func pushdownTypes() []string {
	types := gpu.NewCatalog().InstanceTypes()
	for _, k := range types {
		if s, ok := strings.CutPrefix(k, "standard_"); ok {
			types = append(types, s)
		}
	}
	slices.Sort(types)
	return slices.Compact(types)
}

// pushdownInList is the SQL IN-list of the CUR query: the instance-type
// column, trimmed, lower-cased and without SageMaker's "ml." prefix
// (ingest's recogniseInstance), is one of these.
func pushdownInList() string {
	var b strings.Builder
	line := "    "
	for i, k := range pushdownTypes() {
		item := "'" + k + "'"
		if i < len(pushdownTypes())-1 {
			item += ","
		}
		if len(line)+len(item) > 100 {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = "    "
		}
		line += item + " "
	}
	b.WriteString(strings.TrimRight(line, " ") + ")")
	return b.String()
}

// pushdownPattern is the regular expression of the FOCUS query: a known
// instance type as a word of the text, as gpu.Catalog.FindInstance finds one
// (words are runs of ASCII letters, digits, '.', '-' and '_', trailing
// '.', '-' and '_' dropped), on lower-cased text.
func pushdownPattern() string {
	alts := make([]string, 0, len(pushdownTypes()))
	for _, k := range pushdownTypes() {
		alts = append(alts, regexp.QuoteMeta(k))
	}
	return `(^|[^a-z0-9._-])(` + strings.Join(alts, "|") + `)[._-]*($|[^a-z0-9._-])`
}

// TestPushdownGPUList: docs/SCALE.md's CUR and FOCUS queries keep exactly
// the lines whose instance type the ingest recognises as a GPU instance:
// the IN-list and the pattern they hold are generated from the GPU catalog
// (golden files, rewritten with -update when the catalog changes), and the
// pattern finds a type in text exactly where FindInstance does, on
// generated texts.
func TestPushdownGPUList(t *testing.T) {
	list, pattern := pushdownInList(), pushdownPattern()
	golden.Check(t, "in_list.sql", []byte(list+"\n"))
	golden.Check(t, "pattern.txt", []byte(pattern+"\n"))
	for _, k := range pushdownTypes() {
		if strings.HasPrefix(k, "ml.") || k != strings.TrimSpace(k) || strings.Contains(k, "'") {
			t.Fatalf("catalog type %q: the query's normalisation would not find it", k)
		}
	}
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "SCALE.md"))
	if err != nil {
		t.Fatal(err)
	}
	if q := docSQL(t, string(doc), "### Athena over CUR 2.0"); !strings.Contains(q, "IN (\n"+list) {
		t.Errorf("docs/SCALE.md's CUR query does not hold the catalog's IN-list:\n%s", list)
	}
	if q := docSQL(t, string(doc), "### Athena over a FOCUS export"); !strings.Contains(q, "'"+pattern+"'") {
		t.Errorf("docs/SCALE.md's FOCUS query does not hold the catalog's pattern:\n%s", pattern)
	}

	// The pattern against FindInstance, on texts made of catalog types,
	// near-misses and separators.
	re := regexp.MustCompile(pattern)
	cat := gpu.NewCatalog()
	types := pushdownTypes()
	words := append(slices.Clone(types), "m5.large", "p5.48xlarge2", "xg5.xlarge", "$1.624", "per", "Hour", "BoxUsage:", "g5")
	seps := []string{" ", ":", "/", ".", "-", "_", "(", ")", ", ", "é", ""}
	rng := rand.New(rand.NewPCG(34, 3))
	for range 5000 {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			w := words[rng.IntN(len(words))]
			if rng.IntN(4) == 0 {
				w = strings.ToUpper(w)
			}
			b.WriteString(w + seps[rng.IntN(len(seps))])
		}
		text := b.String()
		_, _, _, want := cat.FindInstance(text)
		if got := re.MatchString(strings.ToLower(text)); got != want {
			t.Errorf("%q: pattern %v, FindInstance %v", text, got, want)
		}
	}
}
