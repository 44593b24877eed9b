package publish

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFetchSnapshot: a period's snapshot comes back decompressed, byte for
// byte, with the URL it came from; a folder a killed fetch left is removed;
// a period without a snapshot is an error naming the period and the URL,
// and leaves no folder behind.
func TestFetchSnapshot(t *testing.T) {
	c, srv := newTestS3(t, "weekly")
	ctx := context.Background()
	raw := bytes.Repeat([]byte("SQLite format 3\x00"), 1000)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	srv.Put(t, "reports", "weekly/2026-W47/finops-2026-W47.db.gz", gz.Bytes())

	dir := t.TempDir()
	stale := filepath.Join(dir, ".finops-restore-123")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	snap, err := c.FetchSnapshot(ctx, "2026-W47", dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(snap.Path); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("fetched %d bytes, %v; want the %d bytes uploaded", len(got), err, len(raw))
	}
	if snap.URL != "s3://reports/weekly/2026-W47/finops-2026-W47.db.gz" || len(snap.SHA256) != 64 {
		t.Errorf("snapshot %+v", snap)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale restore folder is still there")
	}
	snap.Remove()

	_, err = c.FetchSnapshot(ctx, "2026-W40", dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) ||
		!strings.Contains(err.Error(), "no snapshot for 2026-W40 at s3://reports/weekly/2026-W40/finops-2026-W40.db.gz") {
		t.Errorf("missing snapshot: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
}
