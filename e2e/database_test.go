package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingDatabaseRefused: the commands that only read the database refuse
// a path where there is none (exit 2, naming the path and how to create it)
// instead of creating an empty database and reporting zeros with exit 0 — a
// --db typo must be loud. The file must not be created either.
func TestMissingDatabaseRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"report", []string{"report", "--week", "2026-W47"}},
		{"review", []string{"review", "--quarter", "2026Q3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "typo.db")
			args := append([]string{"--db", db}, tc.args...)
			args = append(args, "--out", filepath.Join(dir, "out"))
			code, stdout, stderr := runFinops(t, args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (usage)\n%s\n%s", code, stdout, stderr)
			}
			for _, want := range []string{db, "finops ingest"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, stderr)
				}
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("%s: %v, want it not created", db, err)
			}
			if entries, _ := os.ReadDir(filepath.Join(dir, "out")); len(entries) > 0 {
				t.Errorf("reports written from no database: %v", entries)
			}
		})
	}
}
