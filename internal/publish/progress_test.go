package publish

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestProgressReaderCountsEachByteOnce drives the reader as the SDK does:
// a pass to sign, a rewind, a send, a retry. The expected totals are the
// body's size, counted by hand from the steps.
func TestProgressReaderCountsEachByteOnce(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 1000)
	for _, tc := range []struct {
		name  string
		start int64                 // the body's offset when the upload begins
		steps func(r io.ReadSeeker) // reads and seeks
		want  int                   // bytes reported in all
	}{
		{"one pass", 0, func(r io.ReadSeeker) { io.Copy(io.Discard, r) }, 1000},
		{"sign, rewind, send", 0, func(r io.ReadSeeker) {
			io.Copy(io.Discard, r)
			r.Seek(0, io.SeekStart)
			io.Copy(io.Discard, r)
		}, 1000},
		{"a retry cut at 300 bytes, then the whole body", 0, func(r io.ReadSeeker) {
			io.CopyN(io.Discard, r, 300)
			r.Seek(0, io.SeekStart)
			io.Copy(io.Discard, r)
		}, 1000},
		{"cut at 600, rewound, cut at 400", 0, func(r io.ReadSeeker) {
			io.CopyN(io.Discard, r, 600)
			r.Seek(0, io.SeekStart)
			io.CopyN(io.Discard, r, 400)
		}, 600},
		{"a body that begins at 200: 800 bytes, and a rewind to its start", 200, func(r io.ReadSeeker) {
			io.Copy(io.Discard, r)
			r.Seek(200, io.SeekStart)
			io.Copy(io.Discard, r)
		}, 800},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := bytes.NewReader(body)
			src.Seek(tc.start, io.SeekStart)
			got := 0
			r, err := newProgressReader(src, func(n int) { got += n })
			if err != nil {
				t.Fatal(err)
			}
			tc.steps(r)
			if got != tc.want {
				t.Errorf("reported %d bytes, want %d", got, tc.want)
			}
		})
	}
}

// TestS3UploadProgress uploads files to a real versitygw with a progress
// callback: the bytes reported add up to each file's size (plain HTTP, so
// the SDK reads each body twice, to sign it and to send it), a large file
// reports in several reads, and the objects hold the files' bytes.
func TestS3UploadProgress(t *testing.T) {
	c, srv := newTestS3(t, "weekly")
	ctx := context.Background()
	dir := t.TempDir()
	var total, reported int64
	for _, size := range []int{0, 1, 64 << 10, 3 << 20} {
		body := bytes.Repeat([]byte{'f'}, size)
		path := filepath.Join(dir, "f.bin")
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(body)
		key := "weekly/2026-W47/" + hex.EncodeToString(h[:4])
		var got, calls int
		err := c.Upload(ctx, key, path, "application/octet-stream", hex.EncodeToString(h[:]),
			WithProgress(func(n int) { got += n; calls++ }))
		if err != nil {
			t.Fatal(err)
		}
		if got != size {
			t.Errorf("%d-byte file: %d bytes reported", size, got)
		}
		if size >= 1<<20 && calls < 2 {
			t.Errorf("%d-byte file reported in %d call(s): not as it went", size, calls)
		}
		if obj := srv.Get(t, "reports", key); !bytes.Equal(obj.Body, body) {
			t.Errorf("%d-byte file: the object holds %d bytes", size, len(obj.Body))
		}
		total += int64(size)
		reported += int64(got)
	}
	if reported != total {
		t.Errorf("reported %d bytes for files of %d in all", reported, total)
	}
}
