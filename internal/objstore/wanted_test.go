package objstore

import (
	"context"
	"io"
	"math/rand"
	"strings"
	"testing"
)

// TestWantedMatchesSaveGenerated checks, over seeded random listings
// (hidden names, folder markers, keys that cannot be saved, keys that are
// another's folder, a prefix that is a folder or a key), that Wanted says
// of each object what Save does with it: an incremental pull
// (source/pull.go) counts, records and downloads exactly the objects a
// full download would save or refuse by name. Wanted itself is checked
// against the rule written out here segment by segment.
func TestWantedMatchesSaveGenerated(t *testing.T) {
	segs := []string{"a", "b", "c.csv", ".h", "..", ".", "", `x\y`, "d"}
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		prefix := []string{"p/", "p/a", "", "p/.h/"}[r.Intn(4)]
		accept := func(k string) bool { return strings.HasPrefix(k, prefix) && !strings.HasSuffix(k, "b") }
		seen := map[string]bool{}
		var objs []Listed
		for range 1 + r.Intn(8) {
			k := "p"
			for range 1 + r.Intn(3) {
				k += "/" + segs[r.Intn(len(segs))]
			}
			if !seen[k] {
				seen[k] = true
				objs = append(objs, Listed{Key: k, Folder: r.Intn(8) == 0})
			}
		}
		wanted := map[string]bool{}
		for _, o := range objs {
			w := Wanted(o, prefix, accept)
			if want := wantedByRule(o, prefix, accept); w != want {
				t.Fatalf("seed %d: Wanted(%q, prefix %q) = %v, the rule says %v", seed, o.Key, prefix, w, want)
			}
			wanted[o.Key] = w
		}
		var copied []string
		s := Saver{Pkg: "test", URL: func(k string) string { return "s3://b/" + k },
			Copy: func(_ context.Context, o Listed, w io.Writer) (string, error) {
				copied = append(copied, o.Key)
				_, err := io.WriteString(w, o.Key)
				return "", err
			}}
		files, refused, err := s.Save(context.Background(), objs, prefix, accept, t.TempDir())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		n := 0
		for _, w := range wanted {
			if w {
				n++
			}
		}
		for _, k := range copied {
			if !wanted[k] {
				t.Fatalf("seed %d: Save downloaded %q, which Wanted leaves out", seed, k)
			}
		}
		// Each wanted object is saved, or refused (by name, or as
		// another's folder before any byte is read).
		if len(files)+len(refused) != n {
			t.Fatalf("seed %d: prefix %q: %d saved and %d refused of %v, Wanted takes %d", seed, prefix, len(files), len(refused), objs, n)
		}
	}
}

// wantedByRule is the rule of Save written out: no folder marker, taken
// by accept, and either a key that cannot be saved (an empty, "." or ".."
// segment, a backslash, a NUL: refused by name), the prefix itself, or no
// segment below the prefix's folder starting with '.'.
func wantedByRule(o Listed, prefix string, accept func(string) bool) bool {
	if o.Folder || strings.HasSuffix(o.Key, "/") || !accept(o.Key) {
		return false
	}
	segs := strings.Split(o.Key, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "\\\x00") {
			return true
		}
	}
	if o.Key == prefix {
		return true
	}
	below := len(strings.Split(prefix, "/")) - 1 // segments of the prefix's folder
	for _, s := range segs[below:] {
		if s[0] == '.' {
			return false
		}
	}
	return true
}
