package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/objstore"
)

// fetcher is what Azure and GCS share.
type fetcher interface {
	Fetch(ctx context.Context, prefix string, accept func(string) bool, dir string) ([]objstore.Fetched, []error, error)
}

// fetchCase is one source's key part and what it must yield.
type fetchCase struct {
	name    string
	key     string   // the source's key part (a prefix or a glob)
	want    []string // keys downloaded, sorted
	refused []string // substrings, one per refused key, in order
	errHas  []string // substrings of the fetch error; nil: no error
}

// runFetch fetches c.key into a fresh folder inside a sandbox and checks
// what came back, the files' bytes and sums against objects, and that
// nothing was written outside the folder.
func runFetch(t *testing.T, f fetcher, c fetchCase, urlBase string, objects map[string][]byte, secrets ...string) {
	t.Helper()
	prefix, match, err := objstore.SourceKeys(c.key)
	if err != nil {
		t.Fatal(err)
	}
	sandbox := t.TempDir()
	dir := filepath.Join(sandbox, "a", "b", "dl")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files, refused, err := f.Fetch(context.Background(), prefix, match, dir)
	if c.errHas != nil {
		checkFetchError(t, err, c.errHas, dir, secrets)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fl := range files {
		got = append(got, fl.Key)
		checkFetchedFile(t, fl, dir, urlBase, objects)
	}
	slices.Sort(got)
	if !slices.Equal(got, c.want) {
		t.Errorf("downloaded %q, want %q", got, c.want)
	}
	if len(refused) != len(c.refused) {
		t.Errorf("refused %q, want %d like %q", refused, len(c.refused), c.refused)
	} else {
		for i, w := range c.refused {
			if !strings.Contains(refused[i].Error(), w) || !strings.Contains(refused[i].Error(), "not downloaded") {
				t.Errorf("refused[%d] = %q, want %q … not downloaded", i, refused[i], w)
			}
		}
	}
	// Nothing but the downloaded copies, under dir.
	filepath.WalkDir(sandbox, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if rel, _ := filepath.Rel(dir, p); !filepath.IsLocal(rel) {
			t.Errorf("a file outside the download folder: %s", p)
		}
		return nil
	})
}

// checkFetchError checks a fetch that must fail: the error holds each of
// errHas, no secret, on one line, and no partial copy is left in dir.
func checkFetchError(t *testing.T, err error, errHas []string, dir string, secrets []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one with %q", errHas)
	}
	for _, w := range errHas {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	for _, s := range secrets {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error shows a secret: %q", err)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans lines: %q", err)
	}
	// A failed download leaves no partial copy to be read.
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

// checkFetchedFile checks one downloaded file: its URL, its place under
// dir by its key, and its bytes, sum, size and time against the object.
func checkFetchedFile(t *testing.T, fl objstore.Fetched, dir, urlBase string, objects map[string][]byte) {
	t.Helper()
	if fl.URL != urlBase+fl.Key {
		t.Errorf("%s: URL %q, want %q", fl.Key, fl.URL, urlBase+fl.Key)
	}
	if fl.Path != filepath.Join(dir, filepath.FromSlash(fl.Key)) {
		t.Errorf("%s: saved at %s, not under its key", fl.Key, fl.Path)
	}
	b, err := os.ReadFile(fl.Path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(objects[fl.Key])
	if string(b) != string(objects[fl.Key]) || fl.SHA256 != hex.EncodeToString(sum[:]) || fl.Size != int64(len(b)) {
		t.Errorf("%s: copy differs from the object (%d bytes, sha256 %s)", fl.Key, len(b), fl.SHA256)
	}
	if fl.LastModified.IsZero() {
		t.Errorf("%s: no modification time", fl.Key)
	}
}

func focusSample(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ingest", "focus_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
