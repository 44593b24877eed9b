package deliver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/store"
)

// Restored is what Restore brought back.
type Restored struct {
	URL, SHA256 string         // the snapshot's
	Counts      map[string]int // rows per table (store.Counts)
	Kept        string         // where the database it replaced is kept, or ""
}

// Restore downloads a period's snapshot (publish), checks it and moves it
// into place of db (store.Restore), holding the run lock so no run works on
// the database meanwhile: a held lock is store.ErrLocked. Whether db may be
// replaced is the caller's to decide first.
func Restore(ctx context.Context, client *publish.S3, period, db string, now time.Time) (*Restored, error) {
	dir := filepath.Dir(db)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	lock, err := store.AcquireRunLock(db, "restore "+period, now)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	snap, err := client.FetchSnapshot(ctx, period, dir)
	var none *publish.NoSnapshotError
	if errors.As(err, &none) {
		return nil, fmt.Errorf("restore: %w: check --period and --from (each weekly run uploads its period's snapshot)", err)
	}
	if err != nil {
		return nil, err
	}
	defer snap.Remove()
	kept, err := store.Restore(ctx, snap.Path, db, now)
	if err != nil {
		return nil, fmt.Errorf("restore: %s: %w", snap.URL, err)
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	counts, err := st.Counts(ctx)
	if err != nil {
		return nil, err
	}
	return &Restored{URL: snap.URL, SHA256: snap.SHA256, Counts: counts, Kept: kept}, nil
}
