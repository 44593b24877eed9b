package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
)

// Snapshot writes a consistent copy of the database to path with VACUUM INTO
// and checks the copy with PRAGMA integrity_check. The copy is taken inside
// one read transaction, so it is consistent even while another connection
// writes (WAL), and it is compact (free pages are dropped). path must not
// exist; on any error it is removed, so a file at path is always a checked
// snapshot.
func (s *Store) Snapshot(ctx context.Context, path string) (err error) {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("store: snapshot: %s already exists", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: snapshot: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(path)
		}
	}()
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("store: snapshot to %s: %w", path, err)
	}
	if err := CheckIntegrity(ctx, path); err != nil {
		return fmt.Errorf("store: snapshot: %w", err)
	}
	return nil
}

// CheckIntegrity opens the SQLite file at path read-only and runs PRAGMA
// integrity_check; any answer but "ok" is an error that quotes the first
// problems found. It is how a snapshot is checked before upload and after
// restore.
func CheckIntegrity(ctx context.Context, path string) error {
	_, err := checkFile(ctx, path, "integrity_check(20)", "integrity check")
	return err
}

// Diagnose opens the SQLite file at path read-only, runs PRAGMA quick_check
// (the integrity check without the index cross-checks: seconds, not minutes,
// on a large database) and returns its schema version. It never creates or
// migrates the database: it is finops doctor's look at it.
func Diagnose(ctx context.Context, path string) (version int, err error) {
	// A second name of the file is as much a fault as a broken page: every
	// other command refuses it (*LinkedError), so doctor says so first.
	if err := checkOneName(path); err != nil {
		return 0, err
	}
	return checkFile(ctx, path, "quick_check(20)", "quick check")
}

// checkFile runs one of SQLite's checking pragmas on the file at path,
// opened read-only, and reads its schema version.
func checkFile(ctx context.Context, path, pragma, what string) (version int, err error) {
	q := url.Values{}
	q.Set("mode", "ro")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return 0, fmt.Errorf("%s of %s: %w", what, path, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA "+pragma)
	if err != nil {
		return 0, fmt.Errorf("%s of %s: %w", what, path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			return 0, fmt.Errorf("%s of %s: %w", what, path, err)
		}
		if msg != "ok" {
			problems = append(problems, msg)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("%s of %s: %w", what, path, err)
	}
	if len(problems) > 0 {
		return 0, fmt.Errorf("%s of %s failed: %s", what, path, strings.Join(problems, "; "))
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return 0, fmt.Errorf("%s of %s: read schema version: %w", what, path, err)
	}
	return version, nil
}
