package e2e

// Issue #26, hardening round three, item 2: the run lock is the database
// file's, not its path's. A run reaching the database through a symbolic
// link overlapped one using the real path (each lead got the email twice);
// through a hard link, a 200k-row import reported success and was gone
// after a checkpoint.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/store"
)

// TestRunLockSymlinkedDatabase: while a run holds the lock through one name
// of the database (its real path, or a link to it), `finops run` through
// the other exits 5 at once, naming the one lock file, and records nothing.
func TestRunLockSymlinkedDatabase(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "data", "f.db")
	link := filepath.Join(dir, "f.db")
	if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	bills := filepath.Join(dir, "bills")
	if err := os.Mkdir(bills, 0o755); err != nil {
		t.Fatal(err)
	}
	writeWeekBill(t, bills)
	cfg := writeConfig(t, dir, "finops.yaml", "out: "+filepath.Join(dir, "out")+
		"\nformats: [json]\nbilling:\n  - path: "+filepath.Join(bills, "*.csv")+"\n    mapping: autodl\n")
	if code, out, errOut := runFinops(t, "--config", cfg, "--db", real, "ingest", filepath.Join(bills, "autodl.csv")); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errOut)
	}
	before := counts(t, real)
	for _, tc := range []struct{ held, run string }{{real, link}, {link, real}} {
		lock, err := store.AcquireRunLock(tc.held, "run 2026-W48", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runFinops(t, "--config", cfg, "--db", tc.run, "run", "--week", "2026-W48", "--no-upload", "--no-email")
		lock.Release()
		if code != cli.ExitBusy || !strings.Contains(errOut, "another finops run is in progress") || !strings.Contains(errOut, real+".lock") {
			t.Errorf("lock held through %s, run through %s: exit %d, want %d naming %s:\n%s%s",
				tc.held, tc.run, code, cli.ExitBusy, real+".lock", out, errOut)
		}
	}
	if after := counts(t, real); !equalCounts(before, after) {
		t.Errorf("the refused runs changed the database: %v → %v", before, after)
	}
	if _, err := os.Stat(link + ".lock"); !os.IsNotExist(err) {
		t.Errorf("a second lock file next to the link: %v", err)
	}
	// Unheld, the run through the link goes ahead.
	if code, out, errOut := runFinops(t, "--config", cfg, "--db", link, "run", "--week", "2026-W48", "--no-upload", "--no-email"); code != 0 {
		t.Errorf("run through the link, lock free: exit %d\n%s%s", code, out, errOut)
	}
}

// TestHardLinkedDatabaseRefused: a database file with a second hard link is
// refused by ingest, run and report through either name, naming the path
// and saying to use one path; the file is left as it was.
func TestHardLinkedDatabaseRefused(t *testing.T) {
	db, _ := hostileDB(t)
	other := filepath.Join(t.TempDir(), "same.db")
	if err := os.Link(db, other); err != nil {
		t.Skipf("no hard links here (or the temporary folders are on two file systems): %v", err)
	}
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	bill := filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv")
	cfg := writeConfig(t, t.TempDir(), "finops.yaml", "formats: [json]\nbilling:\n  - path: "+bill+"\n")
	for _, name := range []string{other, db} {
		for _, args := range [][]string{
			{"ingest", bill},
			{"run", "--week", "2026-W48", "--no-upload", "--no-email", "--out", filepath.Join(t.TempDir(), "out")},
			{"report", "--week", "2026-W48", "--out", filepath.Join(t.TempDir(), "out")},
		} {
			code, out, errOut := runFinops(t, append([]string{"--config", cfg, "--db", name}, args...)...)
			want := name + " has 2 hard links"
			if code == 0 || !strings.Contains(out+errOut, want) || !strings.Contains(out+errOut, "use one path") {
				t.Errorf("%s through %s: exit %d, want a failure saying %q and to use one path:\n%s%s", args[0], name, code, want, out, errOut)
			}
		}
	}
	if after, _ := os.ReadFile(db); string(after) != string(before) {
		t.Error("the refused database file changed")
	}
}
