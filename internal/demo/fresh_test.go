package demo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestFresh: the fleet is written into a folder created for it, and an
// earlier run's database and its -wal and -shm files are gone.
func TestFresh(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "demo-data")
	f, err := Fresh(dir, testNow, 1)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(f.Config.Database) != dir {
		t.Fatalf("database %s, want one in %s", f.Config.Database, dir)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.WriteFile(f.Config.Database+suffix, []byte("an earlier run"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Fresh(dir, testNow, 1); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(f.Config.Database + suffix); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s%s is still there (%v)", f.Config.Database, suffix, err)
		}
	}
}
