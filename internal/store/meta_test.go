package store

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"
)

// TestDatabaseID: a database has one id, 32 hex digits, the same when it is
// opened again and different from another database's.
func TestDatabaseID(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	id := func(name string) string {
		t.Helper()
		s, err := Open(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		v, err := s.DatabaseID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a := id("a.db")
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(a) {
		t.Errorf("id %q: want 32 hex digits", a)
	}
	if again := id("a.db"); again != a {
		t.Errorf("opened again: id %q, want %q", again, a)
	}
	if b := id("b.db"); b == a {
		t.Errorf("two databases share the id %q", a)
	}
}
