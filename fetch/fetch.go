// Package fetch downloads a remote billing source's objects — Azure Blob
// Storage (az://, https://<account>.blob.core.windows.net/) and Google Cloud
// Storage (gs://) — into a local folder for ingest, keeping their key paths,
// so that export manifests find their data files beside them and the
// delivery planning of a folder applies unchanged. Its results are
// publish.Fetched, as S3's (publish.S3.Fetch) are.
package fetch

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/finops-oss/finops/publish"
)

// object is one listed object.
type object struct {
	key      string
	size     int64
	modified time.Time
	md5      []byte // the service's Content-MD5, when it keeps one
	folder   bool   // a folder marker (a hierarchical namespace's directory blob)
}

// store is one container or bucket, as the download loop sees it.
type store interface {
	// list returns every object under prefix; its errors are explained.
	list(ctx context.Context, prefix string) ([]object, error)
	// open streams one object; its errors are explained.
	open(ctx context.Context, key string) (io.ReadCloser, error)
	// url names an object in messages and in the database.
	url(key string) string
}

// download saves the objects under prefix that accept takes (nil: all)
// into dir as dir/<key>, as publish.S3.Fetch does: folder markers and hidden
// names (a file or folder below the prefix starting with '.') are left out;
// keys that cannot be saved safely (publish.LocalName) are refused, one
// error each naming the object; files are created through an os.Root on
// dir, so no key reaches outside it. Each object is streamed to its file,
// checked against its MD5 when the service keeps one, and given the
// object's modification time.
func download(ctx context.Context, s store, prefix string, accept func(string) bool, dir string) (files []publish.Fetched, refused []error, err error) {
	objs, err := s.list(ctx, prefix)
	if err != nil {
		return nil, nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("fetch: %s: %w", s.url(prefix), err)
	}
	defer root.Close()
	base := prefix[:strings.LastIndex(prefix, "/")+1]
	for _, o := range objs {
		if o.folder || strings.HasSuffix(o.key, "/") || (accept != nil && !accept(o.key)) {
			continue
		}
		rel, err := publish.LocalName(o.key)
		if err != nil {
			refused = append(refused, fmt.Errorf("%s: %w: not downloaded; rename the object", s.url(o.key), err))
			continue
		}
		if o.key != prefix && hidden(strings.TrimPrefix(o.key, base)) {
			continue
		}
		f, err := fetchOne(ctx, s, root, rel, o)
		if errors.Is(err, errUnsafe) {
			refused = append(refused, err)
			continue
		}
		if err != nil {
			return files, refused, err
		}
		f.Path = filepath.Join(dir, rel)
		files = append(files, f)
	}
	return files, refused, nil
}

var errUnsafe = errors.New("cannot be saved here")

// fetchOne streams one object to rel under root.
func fetchOne(ctx context.Context, s store, root *os.Root, rel string, o object) (publish.Fetched, error) {
	url := s.url(o.key)
	if d := filepath.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o700); err != nil {
			// A key that is also another key's folder ("a" and "a/b").
			return publish.Fetched{}, fmt.Errorf("%s: %w: %v; not downloaded", url, errUnsafe, err)
		}
	}
	out, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return publish.Fetched{}, fmt.Errorf("%s: %w: %v; not downloaded", url, errUnsafe, err)
	}
	sum, n, err := copyObject(ctx, s, o, out)
	if cerr := out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("fetch: download %s: %w", url, cerr)
	}
	if err != nil {
		root.Remove(rel)
		return publish.Fetched{}, err
	}
	if !o.modified.IsZero() {
		root.Chtimes(rel, o.modified, o.modified)
	}
	return publish.Fetched{Key: o.key, URL: url, Size: n, LastModified: o.modified, SHA256: sum}, nil
}

// copyObject streams o to w and returns the copy's sha256 and size. A copy
// whose MD5 differs from the one the service keeps is an error: a torn or
// altered download is never imported.
func copyObject(ctx context.Context, s store, o object, w io.Writer) (string, int64, error) {
	body, err := s.open(ctx, o.key)
	if err != nil {
		return "", 0, err
	}
	defer body.Close()
	sh, md := sha256.New(), md5.New()
	n, err := io.Copy(io.MultiWriter(w, sh, md), body)
	if err != nil {
		return "", n, fmt.Errorf("fetch: download %s: %w; run the ingest again (it resumes where the database stands)", s.url(o.key), err)
	}
	if len(o.md5) == md5.Size && !equalSum(md, o.md5) {
		return "", n, fmt.Errorf("fetch: download %s: its MD5 is not the one the service keeps (%d bytes read); run the ingest again, and check the object if it repeats",
			s.url(o.key), n)
	}
	return hex.EncodeToString(sh.Sum(nil)), n, nil
}

func equalSum(h hash.Hash, want []byte) bool { return string(h.Sum(nil)) == string(want) }

// hidden reports whether a relative key has a file or folder name starting
// with '.'.
func hidden(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// redact removes secrets (4 characters or more) from s: what a library
// puts in a message reaches no output or database row.
func redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}
