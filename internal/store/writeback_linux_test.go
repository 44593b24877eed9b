package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// openFilesNamed counts this process's file descriptors open on any of
// names, as /proc/self/fd resolves them.
func openFilesNamed(t *testing.T, names ...string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue // the directory's own descriptor, closed by now
		}
		for _, name := range names {
			if target == name {
				n++
			}
		}
	}
	return n
}

// TestWritebackClosesItsFiles: while an import runs, its writeback holds
// the WAL and the database file open (more descriptors on them than SQLite's
// own); once the import returns, exactly SQLite's are left, so a week of
// imports opens nothing that stays open. The parse waits three writeback
// periods before its lines, so the writeback has ticked while it runs.
func TestWritebackClosesItsFiles(t *testing.T) {
	s := openTest(t)
	path, err := filepath.EvalSymlinks(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	// A first import creates the WAL, so that both files exist from the
	// start of the second.
	start := utc(2025, 3, 1, 0, 0, 0)
	mustImport(t, s, "first.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: 1},
		[]*finops.BillingLine{usageLine(2, "r0", start, start.Add(time.Hour), "1")}, nil, nil))
	before := openFilesNamed(t, path, path+"-wal")

	var during int
	lines := []*finops.BillingLine{usageLine(2, "r1", start, start.Add(time.Hour), "2")}
	mustImport(t, s, "second.csv", func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		time.Sleep(3 * writebackEvery)
		during = openFilesNamed(t, path, path+"-wal")
		return feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: 1}, lines, nil, nil)(ctx, sink)
	})
	after := openFilesNamed(t, path, path+"-wal")
	if during < before+2 {
		t.Errorf("%d descriptors on the database and its WAL during the import, %d before: the writeback opened neither", during, before)
	}
	if after != before {
		t.Errorf("%d descriptors on the database and its WAL after the import, %d before it", after, before)
	}
}

// TestWritebackOpensFilesThatAppear: a database whose files do not exist
// when the writeback starts (the WAL appears with the first write) has them
// opened once they do, and closed by stop.
func TestWritebackOpensFilesThatAppear(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "later.db")
	stop := startWriteback(path)
	time.Sleep(2 * writebackEvery)
	if n := openFilesNamed(t, path, path+"-wal"); n != 0 {
		stop()
		t.Fatalf("%d descriptors on files that do not exist", n)
	}
	for _, name := range []string{path, path + "-wal"} {
		if err := os.WriteFile(name, []byte("pages"), 0o600); err != nil {
			stop()
			t.Fatal(err)
		}
	}
	time.Sleep(3 * writebackEvery)
	during := openFilesNamed(t, path, path+"-wal")
	stop()
	if during != 2 {
		t.Errorf("%d descriptors on the two files once they exist, want 2", during)
	}
	if n := openFilesNamed(t, path, path+"-wal"); n != 0 {
		t.Errorf("%d descriptors left after stop", n)
	}
}
