package report

import (
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// dirState is a folder's entries: name → contents ("<dir>" for a folder).
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			out[e.Name()] = "<dir>"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func sameState(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A failure in any writer of a report, first or last, leaves none of its
// files: not the ones written before it, not a temporary file. An earlier
// report of the same name and a stranger's file stay as they were.
func TestWriteFilesWriterFails(t *testing.T) {
	for _, failing := range []string{".xlsx", ".html", ".json"} {
		dir := t.TempDir()
		for name, body := range map[string]string{"r.xlsx": "last week's workbook", "notes.txt": "not ours"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := dirState(t, dir)
		boom := errors.New("report: write json: unsupported value: NaN")
		_, err := writeFiles(dir, "r", []string{".xlsx", ".html", ".json"}, "report", nil, func(f string, w io.Writer) error {
			if f == failing {
				io.WriteString(w, "half a ")
				return boom
			}
			_, err := io.WriteString(w, "new "+f)
			return err
		})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "none of this report's files were kept") {
			t.Errorf("%s fails: err = %v", failing, err)
		}
		if after := dirState(t, dir); !sameState(before, after) {
			t.Errorf("%s fails: folder went from %v to %v", failing, before, after)
		}
	}
}

// A target that cannot be replaced (a folder where the json goes: the last
// rename fails) undoes the renames before it: a new file is removed, one
// that replaced last week's report is put back.
func TestWriteAllLastRenameFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "finops-2026-W47.xlsx"), []byte("last week's workbook"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "finops-2026-W47.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)
	paths, err := WriteAll(dir, handResult(t), []string{"xlsx", "html", "json"}, testMeta())
	if err == nil || !strings.Contains(err.Error(), "finops-2026-W47.json") || paths != nil {
		t.Fatalf("paths = %q, err = %v, want an error naming the json target", paths, err)
	}
	if after := dirState(t, dir); !sameState(before, after) {
		t.Errorf("folder went from %v to %v", before, after)
	}
	// And with the folder gone the same call writes all three.
	os.Remove(filepath.Join(dir, "finops-2026-W47.json"))
	paths, err = WriteAll(dir, handResult(t), nil, testMeta())
	if err != nil || len(paths) != 3 {
		t.Fatalf("paths = %q, err = %v", paths, err)
	}
	names := slices.Sorted(maps.Keys(dirState(t, dir)))
	if !slices.Equal(names, []string{"finops-2026-W47.html", "finops-2026-W47.json", "finops-2026-W47.xlsx"}) {
		t.Errorf("folder holds %q", names)
	}
}

// The workbook is written beside the other files: when another file's
// writer fails while the workbook is still being written, stop is called
// (the workbook then stops, its context cancelled), the error returned is
// the failure, not the stopped workbook's, and nothing is kept.
func TestWriteFilesFirstErrorWins(t *testing.T) {
	for range 20 { // goroutines: several schedules
		dir := t.TempDir()
		boom := errors.New("report: write html: broken")
		stopped := errors.New("context canceled")
		stop := make(chan struct{})
		_, err := writeFiles(dir, "r", []string{".xlsx", ".html", ".json"}, "report", func() { close(stop) }, func(f string, w io.Writer) error {
			switch f {
			case ".xlsx":
				io.WriteString(w, "rows")
				select { // still writing when the page fails
				case <-stop:
					return stopped
				case <-time.After(10 * time.Second):
					t.Error("the workbook was never stopped after the page failed")
					return nil
				}
			case ".html":
				return boom
			}
			t.Errorf("%s written after a failure", f)
			return nil
		})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want the page's", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("%d files left, want none", len(entries))
		}
	}
}

// TestWriteFilesWorkbookBeside: whatever order --format gives, the
// workbook is the file written beside the others — here it can only finish
// once every other file is written, which in series would never happen when
// a file follows it — and the paths keep the order asked for.
func TestWriteFilesWorkbookBeside(t *testing.T) {
	for _, order := range [][]string{
		{".xlsx", ".html", ".json"}, {".html", ".xlsx", ".json"}, {".html", ".json", ".xlsx"},
		{".json", ".xlsx"}, {".xlsx"},
	} {
		var others sync.WaitGroup
		others.Add(len(order) - 1)
		paths, err := writeFiles(t.TempDir(), "r", order, "report", nil, func(f string, w io.Writer) error {
			if f != ".xlsx" {
				others.Done()
				return nil
			}
			done := make(chan struct{})
			go func() { others.Wait(); close(done) }()
			select {
			case <-done:
				return nil
			case <-time.After(5 * time.Second):
				return errors.New("the other files were not written while the workbook was")
			}
		})
		if err != nil {
			t.Fatalf("%v: %v", order, err)
		}
		for i, p := range paths {
			if !strings.HasSuffix(p, "r"+order[i]) {
				t.Errorf("%v: paths %v are not in the order asked for", order, paths)
			}
		}
	}
}
