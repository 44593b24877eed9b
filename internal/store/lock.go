package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RunLock keeps two scheduled runs (or a run and a restore) from working on
// one database at once.
//
// It is an advisory flock(2) on a file next to the database, <db>.lock, taken
// without waiting. The kernel drops the lock when the holding process ends in
// any way — exit, panic, kill -9, OOM kill — so a crashed run never leaves a
// stale lock behind, and no heartbeat or pid guessing is needed. (A lock row
// in the database would survive kill -9 and need exactly that guessing, which
// goes wrong across hosts and pid reuse.) The file also records who holds it,
// so the process that is refused can say by whom. The file is never deleted:
// removing it while another process waits on it would let two processes hold
// "the" lock on two different inodes.
//
// The lock works for processes on one host, and for hosts sharing the file on
// a file system that supports flock (NFS emulates it with POSIX locks); the
// SQLite database itself needs such a file system anyway.
type RunLock struct {
	f    *os.File
	path string
}

// ErrLocked is returned (wrapped in a *LockedError) when another process
// holds the run lock.
var ErrLocked = errors.New("another finops run holds the lock")

// LockedError says who holds the lock, as far as the lock file tells.
type LockedError struct {
	Path   string // the lock file
	Holder string // "pid 1234 on host gpu-a since 2026-11-30T08:00:00Z (run 2026-W48)", or "" when unknown
}

func (e *LockedError) Error() string {
	holder := e.Holder
	if holder == "" {
		holder = "another process"
	}
	return fmt.Sprintf("another finops run is in progress (%s holds %s); not starting a second one", holder, e.Path)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// LockPath is the lock file of the database at dbPath: next to the file
// itself, its path resolved through symbolic links (RealPath), so that every
// name of the database takes the same lock.
func LockPath(dbPath string) string { return RealPath(dbPath) + ".lock" }

// RealPath is dbPath with every symbolic link in it resolved, the way SQLite
// resolves it before naming the -wal and -shm files: a database reached
// through a link and through its real path is one database, and must have
// one lock (before, each name had its own, and two runs overlapped). It
// resolves a link to a database not created yet too, and gives dbPath as it
// is when it cannot be resolved (a missing folder: the open then fails).
func RealPath(dbPath string) string {
	if p, err := filepath.EvalSymlinks(dbPath); err == nil {
		return p
	}
	// Not there yet (the first run creates it), maybe through a link that
	// points at nothing yet: follow the links by hand, then resolve the
	// folder.
	p := dbPath
	for range 40 { // the kernel's own limit on links in a path
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return dbPath
}

// LinkedError is a database file with more than one hard link. SQLite keeps
// a database's write-ahead log (-wal) and shared memory (-shm) next to the
// name it was opened by, so two names of one file are two databases to it:
// writes through one are not seen through the other, and a checkpoint
// through one overwrites the other's (a 200,000-row import reported success
// and was gone after a checkpoint). The run lock, taken per name, cannot
// keep them apart either. A symbolic link is fine: SQLite and the lock
// resolve it (RealPath).
type LinkedError struct {
	Path  string
	Links uint64
}

func (e *LinkedError) Error() string {
	return fmt.Sprintf("store: %s has %d hard links: SQLite keeps the -wal and -shm files per name, so two names of one "+
		"database file corrupt it; use one path: remove the other names (`find / -xdev -samefile %s` lists them), "+
		"or reach it through a symbolic link instead", e.Path, e.Links, e.Path)
}

// checkOneName refuses a database file that has more than one hard link
// (*LinkedError). A database that does not exist yet passes.
func checkOneName(dbPath string) error {
	fi, err := os.Stat(dbPath)
	if err != nil {
		return nil // not there yet, or the open says why
	}
	if n := linkCount(fi); fi.Mode().IsRegular() && n > 1 {
		return &LinkedError{Path: dbPath, Links: n}
	}
	return nil
}

// AcquireRunLock takes the run lock of the database at dbPath without
// waiting: if another process holds it, it returns a *LockedError at once.
// what names the holder's job in the lock file ("run 2026-W48", "restore").
// The lock is the database file's, whatever link it is reached through; a
// database file with more than one hard link is refused (*LinkedError).
func AcquireRunLock(dbPath, what string, now time.Time) (*RunLock, error) {
	if err := checkOneName(dbPath); err != nil {
		return nil, err
	}
	path := LockPath(dbPath)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("store: lock: %w", err)
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
	}
	if !ok {
		holder := readHolder(f)
		f.Close()
		return nil, &LockedError{Path: path, Holder: holder}
	}
	host, _ := os.Hostname()
	info := fmt.Sprintf("pid %d on host %s since %s (%s)\n", os.Getpid(), host, now.UTC().Format(time.RFC3339), what)
	// Best effort: the lock is the flock, the text only explains it.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(info), 0)
	}
	return &RunLock{f: f, path: path}, nil
}

// Release drops the lock. It is safe to call more than once.
func (l *RunLock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	f.Truncate(0)
	unlock(f)
	return f.Close()
}

func readHolder(f *os.File) string {
	b := make([]byte, 256)
	n, _ := f.ReadAt(b, 0)
	s := strings.TrimSpace(string(b[:n]))
	// The file is ours, but print only plain text from it.
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return ""
	}
	return s
}

// Job is the holder's job as it named it in the closing parentheses of the
// lock file's text ("run 2026-W48", "watch", "restore"), or "" when unknown.
func (e *LockedError) Job() string {
	i := strings.LastIndexByte(e.Holder, '(')
	if i < 0 || !strings.HasSuffix(e.Holder, ")") {
		return ""
	}
	return e.Holder[i+1 : len(e.Holder)-1]
}
