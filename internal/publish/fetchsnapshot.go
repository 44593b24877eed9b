package publish

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/finops-oss/finops/internal/objkey"
)

// FetchedSnapshot is a period's database snapshot downloaded and
// decompressed into a temporary folder, for restore to check and move.
type FetchedSnapshot struct {
	Path   string // the decompressed SQLite file
	URL    string // where it came from, s3://bucket/key
	SHA256 string // of the gzipped object, checked against its metadata
	dir    string
}

// Remove deletes the temporary folder and whatever is left in it.
func (f *FetchedSnapshot) Remove() { os.RemoveAll(f.dir) }

// restoreTemp names the temporary folders of FetchSnapshot.
const restoreTemp = ".finops-restore-*"

// FetchSnapshot downloads period's snapshot into a new temporary folder in
// dir (beside the database it will replace, so that moving it there is a
// rename) and decompresses it. Folders an earlier fetch left there are
// removed first: the caller holds the run lock, so none is in use. An
// object that is not there is an error saying so, with its URL.
func (c *S3) FetchSnapshot(ctx context.Context, period, dir string) (*FetchedSnapshot, error) {
	key, err := c.Key(period, objkey.SnapshotName(period))
	if err != nil {
		return nil, err
	}
	tmp, err := freshTemp(dir, restoreTemp)
	if err != nil {
		return nil, fmt.Errorf("publish: fetch snapshot: %w", err)
	}
	snap := &FetchedSnapshot{Path: filepath.Join(tmp, "snapshot.db"), URL: c.URL(key), dir: tmp}
	if err := c.fetchSnapshot(ctx, key, snap); err != nil {
		snap.Remove()
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &NoSnapshotError{Period: period, URL: snap.URL}
		}
		return nil, err
	}
	return snap, nil
}

// NoSnapshotError is FetchSnapshot's answer when the period has no snapshot
// in the bucket; it is an fs.ErrNotExist.
type NoSnapshotError struct {
	Period, URL string
}

func (e *NoSnapshotError) Error() string {
	return fmt.Sprintf("publish: no snapshot for %s at %s", e.Period, e.URL)
}

func (e *NoSnapshotError) Unwrap() error { return fs.ErrNotExist }

func (c *S3) fetchSnapshot(ctx context.Context, key string, snap *FetchedSnapshot) error {
	gz := filepath.Join(snap.dir, "snapshot.db.gz")
	f, err := os.Create(gz)
	if err != nil {
		return fmt.Errorf("publish: fetch snapshot: %w", err)
	}
	snap.SHA256, err = c.Download(ctx, key, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return GunzipFile(gz, snap.Path)
}
