package store

// Issue #26, hardening round three, item 2: the run lock followed the path,
// not the file. The database reached through a symbolic link got a second
// lock, so two runs overlapped (and each lead got the email twice); through
// a hard link, an import reported success and was gone after a checkpoint.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunLockThroughSymlink: the database reached through a link to it (an
// absolute one, a relative one, a link to the link, a link to its folder,
// and a link whose database does not exist yet) takes the same lock as the
// real path: the second is refused as busy, naming the one lock file.
func TestRunLockThroughSymlink(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		create bool // the database exists
		alias  func(t *testing.T, dir, real string) string
	}{
		{"absolute link", true, func(t *testing.T, dir, real string) string {
			return symlink(t, real, filepath.Join(dir, "alias.db"))
		}},
		{"relative link", true, func(t *testing.T, dir, real string) string {
			return symlink(t, filepath.Join("data", "finops.db"), filepath.Join(dir, "alias.db"))
		}},
		{"link to a link", true, func(t *testing.T, dir, real string) string {
			return symlink(t, symlink(t, real, filepath.Join(dir, "one.db")), filepath.Join(dir, "two.db"))
		}},
		{"linked folder", true, func(t *testing.T, dir, real string) string {
			return filepath.Join(symlink(t, filepath.Dir(real), filepath.Join(dir, "elsewhere")), "finops.db")
		}},
		{"link to a database not created yet", false, func(t *testing.T, dir, real string) string {
			return symlink(t, real, filepath.Join(dir, "alias.db"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := realTempDir(t)
			real := filepath.Join(dir, "data", "finops.db")
			if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.create {
				st, err := Open(context.Background(), real)
				if err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			alias := tc.alias(t, dir, real)
			// Either name first: the other is refused.
			for _, order := range [][2]string{{real, alias}, {alias, real}} {
				held, err := AcquireRunLock(order[0], "run 2026-W48", now)
				if err != nil {
					t.Fatalf("lock through %s: %v", order[0], err)
				}
				second, err := AcquireRunLock(order[1], "run 2026-W48", now)
				second.Release()
				var le *LockedError
				if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
					t.Errorf("held through %s, locked through %s: err = %v, want it refused as busy", order[0], order[1], err)
				} else if le.Path != real+".lock" || !strings.Contains(err.Error(), real+".lock") {
					t.Errorf("message %q: want the one lock file, %s", err, real+".lock")
				}
				held.Release()
			}
			if got := LockPath(alias); got != real+".lock" {
				t.Errorf("LockPath(%s) = %s, want %s", alias, got, real+".lock")
			}
		})
	}
}

// TestOpenRefusesHardLinkedDatabase: a database file with a second hard
// link is refused by Open and by AcquireRunLock through either name, the
// error naming the path, why and what to do; the file is not touched. With
// the second name removed, it opens again.
func TestOpenRefusesHardLinkedDatabase(t *testing.T) {
	dir := realTempDir(t)
	real := filepath.Join(dir, "finops.db")
	st, err := Open(context.Background(), real)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	other := filepath.Join(dir, "copy.db")
	if err := os.Link(real, other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	before, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{real, other} {
		for what, try := range map[string]func() error{
			"Open": func() error {
				st, err := Open(context.Background(), name)
				if err == nil {
					st.Close()
				}
				return err
			},
			"AcquireRunLock": func() error {
				l, err := AcquireRunLock(name, "run", time.Now())
				l.Release()
				return err
			},
			// finops doctor's look says so too.
			"Diagnose": func() error {
				_, err := Diagnose(context.Background(), name)
				return err
			},
		} {
			err := try()
			var le *LinkedError
			if !errors.As(err, &le) {
				t.Errorf("%s(%s): err = %v, want a LinkedError", what, name, err)
				continue
			}
			for _, want := range []string{"store: " + name + " has 2 hard links", "-wal and -shm", "use one path"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s(%s): message %q does not say %q", what, name, err, want)
				}
			}
		}
	}
	if after, _ := os.ReadFile(real); string(after) != string(before) {
		t.Error("the refused database file changed")
	}
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	st, err = Open(context.Background(), real)
	if err != nil {
		t.Fatalf("with one name again: %v", err)
	}
	st.Close()
}

func symlink(t *testing.T, target, name string) string {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	return name
}

// realTempDir is t.TempDir with its own links resolved (TMPDIR may hold
// one), so that paths under it are what RealPath gives.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
