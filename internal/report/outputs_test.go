package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/docanchor"
)

// TestOutputRegistryFacts: every report format of the registry has a name
// (once), a docs anchor that exists, files for a result and a writer that
// writes each of them, non-empty, under the name WriteAll gives it; the
// default formats are registered ones.
func TestOutputRegistryFacts(t *testing.T) {
	anchors, err := docanchor.Anchors(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	r := handResult(t)
	seen := map[string]bool{}
	for _, o := range outputFormats() {
		t.Run(o.name, func(t *testing.T) {
			if o.name == "" || seen[o.name] || o.files == nil || o.write == nil {
				t.Fatalf("format %q: a name (once), files and a writer are required", o.name)
			}
			seen[o.name] = true
			if !anchors[o.doc] {
				t.Errorf("format %q: docs anchor %q names no heading", o.name, o.doc)
			}
			suffixes := o.files(r)
			if len(suffixes) == 0 {
				t.Fatalf("format %q writes no file for a result", o.name)
			}
			dir := t.TempDir()
			paths, err := WriteAll(dir, r, []string{o.name}, testMeta())
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, s := range suffixes {
				if !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "-") {
					t.Errorf("format %q: suffix %q starts with neither . nor -", o.name, s)
				}
				want = append(want, filepath.Join(dir, BaseName(r, testMeta())+s))
			}
			slices.Sort(paths)
			slices.Sort(want)
			if !slices.Equal(paths, want) {
				t.Fatalf("format %q wrote %v, want %v", o.name, paths, want)
			}
			for _, p := range paths {
				if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
					t.Errorf("format %q: %s is missing or empty (%v)", o.name, p, err)
				}
			}
		})
	}
	for _, d := range DefaultFormats() {
		if !seen[d] {
			t.Errorf("default format %q is not registered", d)
		}
	}
	if got := Formats(); !slices.Equal(got, outputNames(false)) || len(got) != len(seen) {
		t.Errorf("Formats() = %v, the registry holds %d", got, len(seen))
	}
}
