package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Restore puts the SQLite file at snapshot in place of the database at db,
// after PRAGMA integrity_check: a damaged snapshot never replaces anything.
// A database already at db is kept, with its WAL and shared-memory files,
// as <db>.before-restore-<now, UTC>; kept is that name, or "" when there was
// none. snapshot must be on db's file system (Restore renames it), and the
// caller holds the run lock (AcquireRunLock), so no run works on db meanwhile.
func Restore(ctx context.Context, snapshot, db string, now time.Time) (kept string, err error) {
	if err := CheckIntegrity(ctx, snapshot); err != nil {
		return "", err
	}
	if err := os.Chmod(snapshot, 0o644); err != nil {
		return "", fmt.Errorf("store: restore: %w", err)
	}
	if _, err := os.Stat(db); err == nil {
		// One new name for all three: SQLite finds <name>-wal, so the kept
		// copy opens as it was.
		kept = db + ".before-restore-" + now.UTC().Format("20060102T150405Z")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(db+suffix, kept+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("store: restore: %w", err)
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("store: restore: %w", err)
	}
	if err := os.Rename(snapshot, db); err != nil {
		return kept, fmt.Errorf("store: restore: %w", err)
	}
	return kept, nil
}
