package publish

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/finops-oss/finops/internal/objkey"
)

// Snapshotter writes a consistent, checked copy of a database to a path
// (store.Store.Snapshot: VACUUM INTO, then PRAGMA integrity_check).
type Snapshotter interface {
	Snapshot(ctx context.Context, path string) error
}

// SnapshotFile is a gzipped database snapshot ready to upload.
type SnapshotFile struct {
	Path   string // the .db.gz file
	Name   string // objkey.SnapshotName(period)
	SHA256 string // hex, of the gzipped bytes
	Size   int64
	dir    string
}

// Remove deletes the snapshot's temporary folder.
func (f *SnapshotFile) Remove() error {
	if f == nil || f.dir == "" {
		return nil
	}
	return os.RemoveAll(f.dir)
}

const snapshotDirPattern = ".finops-snapshot-*"

// PrepareSnapshot takes a snapshot of db into a temporary folder in dir
// (next to the database, so the copy needs no other writable file system),
// gzips it and returns the gzipped file; call Remove when done. Folders left
// by an earlier run that died are removed first: the caller holds the run
// lock, so none is in use.
func PrepareSnapshot(ctx context.Context, db Snapshotter, dir, period string) (*SnapshotFile, error) {
	tmp, err := freshTemp(dir, snapshotDirPattern)
	if err != nil {
		return nil, fmt.Errorf("publish: snapshot: %w", err)
	}
	f := &SnapshotFile{Name: objkey.SnapshotName(period), dir: tmp}
	raw := filepath.Join(tmp, "finops.db")
	if err := db.Snapshot(ctx, raw); err != nil {
		f.Remove()
		return nil, err
	}
	f.Path = filepath.Join(tmp, f.Name)
	if f.SHA256, f.Size, err = GzipFile(raw, f.Path); err != nil {
		f.Remove()
		return nil, err
	}
	os.Remove(raw)
	return f, nil
}

// GzipFile compresses src into a new file dst and returns the sha256 (hex)
// and size of dst. The gzip header carries no name and no time, so the same
// database gives the same bytes.
func GzipFile(src, dst string) (sum string, size int64, err error) {
	in, err := os.Open(src)
	if err != nil {
		return "", 0, fmt.Errorf("publish: gzip: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", 0, fmt.Errorf("publish: gzip: %w", err)
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(dst)
		}
	}()
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(out, h)}
	zw, err := gzip.NewWriterLevel(cw, gzip.BestSpeed)
	if err != nil {
		return "", 0, fmt.Errorf("publish: gzip: %w", err)
	}
	if _, err = io.Copy(zw, in); err != nil {
		return "", 0, fmt.Errorf("publish: gzip %s: %w", src, err)
	}
	if err = zw.Close(); err != nil {
		return "", 0, fmt.Errorf("publish: gzip %s: %w", src, err)
	}
	if err = out.Sync(); err != nil {
		return "", 0, fmt.Errorf("publish: gzip %s: %w", dst, err)
	}
	if err = out.Close(); err != nil {
		return "", 0, fmt.Errorf("publish: gzip %s: %w", dst, err)
	}
	return hex.EncodeToString(h.Sum(nil)), cw.n, nil
}

// GunzipFile decompresses src into a new file dst.
func GunzipFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("publish: gunzip: %w", err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return fmt.Errorf("publish: gunzip %s: %w", src, err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("publish: gunzip: %w", err)
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(dst)
		}
	}()
	if _, err = io.Copy(out, zr); err != nil {
		return fmt.Errorf("publish: gunzip %s: %w", src, err)
	}
	if err = zr.Close(); err != nil {
		return fmt.Errorf("publish: gunzip %s: %w", src, err)
	}
	if err = out.Sync(); err != nil {
		return fmt.Errorf("publish: gunzip %s: %w", dst, err)
	}
	return out.Close()
}

// freshTemp makes a temporary folder in dir named after pattern, first
// removing the folders of that pattern a process that died left there: the
// caller holds the run lock, so none is in use.
func freshTemp(dir, pattern string) (string, error) {
	if old, _ := filepath.Glob(filepath.Join(dir, pattern)); len(old) > 0 {
		for _, o := range old {
			os.RemoveAll(o)
		}
	}
	return os.MkdirTemp(dir, pattern)
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
