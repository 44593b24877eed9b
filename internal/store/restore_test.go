package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRestore: a checked snapshot takes the database's place; an existing
// database is kept with its WAL under <db>.before-restore-<UTC time>; a
// damaged snapshot replaces nothing.
func TestRestore(t *testing.T) {
	ctx := context.Background()
	// 15:04:05 at UTC+8 is 07:04:05 UTC: the name is in UTC.
	now := time.Date(2026, 12, 1, 15, 4, 5, 0, time.FixedZone("CST", 8*3600))
	const keptName = "finops.db.before-restore-20261201T070405Z"
	for _, tc := range []struct {
		name     string
		existing bool
		damaged  bool
		wantErr  string
	}{
		{name: "no database yet"},
		{name: "database replaced", existing: true},
		{name: "damaged snapshot", existing: true, damaged: true, wantErr: "integrity check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			snap, db := filepath.Join(dir, "snap.db"), filepath.Join(dir, "finops.db")
			newDB(t, snap)
			if tc.damaged {
				// A page of the file overwritten: SQLite's header stays, its b-tree does not.
				damagePage(t, snap, 2)
			}
			if tc.existing {
				os.WriteFile(db, []byte("old"), 0o644)
				os.WriteFile(db+"-wal", []byte("old wal"), 0o644)
			}
			kept, err := Restore(ctx, snap, db, now)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Restore = %v, want an error with %q", err, tc.wantErr)
				}
				if b, _ := os.ReadFile(db); string(b) != "old" {
					t.Errorf("the database was touched: %q", b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_, walErr := os.Stat(db + "-wal")
			if err := CheckIntegrity(ctx, db); err != nil {
				t.Errorf("restored database: %v", err)
			}
			if !tc.existing {
				if kept != "" {
					t.Errorf("kept = %q with no database before", kept)
				}
				return
			}
			if kept != filepath.Join(dir, keptName) {
				t.Errorf("kept = %q, want %s", kept, keptName)
			}
			for suffix, want := range map[string]string{"": "old", "-wal": "old wal"} {
				if b, err := os.ReadFile(kept + suffix); err != nil || string(b) != want {
					t.Errorf("kept%s = %q, %v; want %q", suffix, b, err, want)
				}
			}
			if walErr == nil {
				t.Error("the old WAL is still beside the restored database")
			}
		})
	}
}

// newDB creates a migrated, closed database at path.
func newDB(t *testing.T, path string) {
	t.Helper()
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
}
