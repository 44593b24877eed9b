package report

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/finops-oss/finops"
)

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteAll(dir, handResult(t), []string{"json", "XLSX", " html ", "json"}, testMeta())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "finops-2026-W47.json"),
		filepath.Join(dir, "finops-2026-W47.xlsx"),
		filepath.Join(dir, "finops-2026-W47.html"),
	}
	if !slices.Equal(paths, want) {
		t.Errorf("paths = %q, want %q", paths, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("dir holds %d entries, want 3 (no temp files left)", len(entries))
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestWriteAllDefaultsToAllFormats(t *testing.T) {
	paths, err := WriteAll(t.TempDir(), handResult(t), nil, testMeta())
	if err != nil || len(paths) != 3 {
		t.Fatalf("paths = %q, err = %v", paths, err)
	}
}

func TestWriteAllUnknownFormat(t *testing.T) {
	dir := t.TempDir()
	_, err := WriteAll(dir, handResult(t), []string{"html", "pdf"}, testMeta())
	if err == nil || !strings.Contains(err.Error(), `"pdf"`) || !strings.Contains(err.Error(), "xlsx, html, json") {
		t.Fatalf("err = %v, want an error naming pdf and the valid formats", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Error("files written despite the invalid format list")
	}
}

func TestWriteAllLabelCannotEscapeDir(t *testing.T) {
	for _, label := range []string{"../../etc/passwd", `..\..\x`, "/abs/path", "", "..", "a b/c"} {
		parent := t.TempDir()
		dir := filepath.Join(parent, "out")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r := handResult(t)
		r.Period.Label = label
		paths, err := WriteAll(dir, r, []string{"json"}, testMeta())
		if err != nil {
			t.Fatalf("label %q: %v", label, err)
		}
		if filepath.Dir(paths[0]) != dir {
			t.Errorf("label %q wrote %s outside %s", label, paths[0], dir)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Errorf("label %q: parent dir has extra entries", label)
		}
	}
}

func TestWriteAllMissingDir(t *testing.T) {
	// A folder that does not exist yet is created (first run, a new --out).
	dir := filepath.Join(t.TempDir(), "new", "sub")
	paths, err := WriteAll(dir, handResult(t), []string{"json"}, testMeta())
	if err != nil || len(paths) != 1 {
		t.Fatalf("WriteAll into a new folder: %v, %v", paths, err)
	}
	// One that cannot be created (its parent is a file) is a report: error.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = WriteAll(filepath.Join(file, "sub"), handResult(t), []string{"json"}, testMeta())
	if err == nil || !strings.HasPrefix(err.Error(), "report: ") {
		t.Fatalf("err = %v, want a report: error", err)
	}
}

func TestWriteAllStreamErrorLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	meta := testMeta()
	meta.Lines = func(func(*finops.BillingLine) error) error { return errors.New("store closed") }
	_, err := WriteAll(dir, handResult(t), []string{"xlsx"}, meta)
	if err == nil || !strings.Contains(err.Error(), "store closed") {
		t.Fatalf("err = %v, want the line source's error", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("dir holds %d entries after a failed write, want none", len(entries))
	}
}

func TestWriteAllTeamFileNames(t *testing.T) {
	dir := t.TempDir()
	meta := testMeta()
	meta.Team = "../nlp team"
	paths, err := WriteAll(dir, handResult(t), []string{"json"}, meta)
	if err != nil {
		t.Fatal(err)
	}
	// The name lost its "../" and space: eight hex digits of the team's
	// SHA-256 keep it apart from a team named "_nlp_team".
	sum := sha256.Sum256([]byte("../nlp team"))
	if want := filepath.Join(dir, "finops-2026-W47-_nlp_team-"+hex.EncodeToString(sum[:4])+".json"); len(paths) != 1 || paths[0] != want {
		t.Errorf("paths = %q, want %q", paths, want)
	}
}

// TestWriteFileAtomicOnlyOverRegularFiles: a device, a pipe or a folder
// named as the output is refused and left as it was, never replaced by a
// regular file (run --textfile /dev/full did; issue #26).
func TestWriteFileAtomicOnlyOverRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	cases := []struct{ path, kind string }{{fifo, "a named pipe"}, {dir, "a folder"}}
	// A device node of its own (/dev/full's numbers, 1:7), so that a
	// regression replaces a file in the test's folder, not /dev/full.
	dev := filepath.Join(dir, "full")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|7); err == nil {
		cases = append(cases, struct{ path, kind string }{dev, "a character device"})
	} else {
		t.Logf("no device node (%v): the device case is left out", err)
	}
	for _, tc := range cases {
		err := WriteFileAtomic(tc.path, func(w io.Writer) error { _, err := io.WriteString(w, "x 1\n"); return err })
		if err == nil || !strings.Contains(err.Error(), tc.kind) {
			t.Errorf("%s: err = %v, want it refused as %s", tc.path, err, tc.kind)
		}
		if fi, err := os.Lstat(tc.path); err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s: now %v (%v)", tc.path, fi.Mode(), err)
		}
	}
	// A regular file is still replaced.
	p := filepath.Join(dir, "metrics.prom")
	os.WriteFile(p, []byte("old"), 0o644)
	if err := WriteFileAtomic(p, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("regular file holds %q", b)
	}
}
