package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Fetched is one object Fetch downloaded.
type Fetched struct {
	Key          string    // the object's key in the bucket
	URL          string    // what the object is called in the database and in messages (Store.URL)
	Path         string    // the local copy, under the folder given to Fetch
	Size         int64     // bytes written
	LastModified time.Time // the object's; also the local copy's modification time
	SHA256       string    // hex sha256 of the local copy
}

// Saver saves a bucket's listed objects into a local folder: Fetch of
// every store saves this one way.
type Saver struct {
	// Pkg names the caller's package in the errors Save makes itself
	// ("publish", "fetch"), as the caller's other errors do.
	Pkg string
	// URL names an object in messages and in the database.
	URL func(key string) string
	// Copy streams o to w and returns the copy's hex sha256. Its errors
	// say what to check; a copy that does not match what the service
	// keeps of the object is one.
	Copy func(ctx context.Context, o Listed, w io.Writer) (string, error)
}

// Save saves the objects of objs, listed under prefix, that accept takes
// (nil: all) into dir as dir/<key>, so that a billing export's manifests
// find their data files beside them. Folder markers (and keys ending in
// "/") and hidden names (a file or folder below the prefix starting with
// '.') are left out. Each object is streamed to its file, never held in
// memory, and given the object's modification time.
//
// Files are created through an os.Root on dir, so no key reaches outside
// it; keys that cannot be saved safely (LocalName) are not downloaded and
// come back as refused, one error each naming the object. err is the first
// failed download; the files saved before it are returned with it.
func (s Saver) Save(ctx context.Context, objs []Listed, prefix string, accept func(key string) bool, dir string) (files []Fetched, refused []error, err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: fetch %s: %w", s.Pkg, s.URL(prefix), err)
	}
	defer root.Close()
	for _, o := range objs {
		if !Wanted(o, prefix, accept) {
			continue
		}
		rel, err := LocalName(o.Key)
		if err != nil {
			refused = append(refused, fmt.Errorf("%s: %w: not downloaded; rename the object", s.URL(o.Key), err))
			continue
		}
		f, err := s.saveOne(ctx, root, rel, o)
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

// Wanted reports whether Save, given o of a listing under prefix, would
// download it or refuse it by name: not a folder marker, taken by accept
// (nil: all), and not hidden below the prefix unless its key cannot be
// saved at all (which Save refuses, naming it). An incremental pull
// (source/pull.go) counts and records exactly these objects.
func Wanted(o Listed, prefix string, accept func(string) bool) bool {
	if o.Folder || strings.HasSuffix(o.Key, "/") || (accept != nil && !accept(o.Key)) {
		return false
	}
	if _, err := LocalName(o.Key); err != nil {
		return true
	}
	base := prefix[:strings.LastIndex(prefix, "/")+1]
	return o.Key == prefix || !hidden(strings.TrimPrefix(o.Key, base))
}

var errUnsafe = errors.New("cannot be saved here")

// saveOne streams one object to rel under root.
func (s Saver) saveOne(ctx context.Context, root *os.Root, rel string, o Listed) (Fetched, error) {
	url := s.URL(o.Key)
	if d := filepath.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o700); err != nil {
			// A key that is also another key's folder (S3 allows "a" and "a/b").
			return Fetched{}, fmt.Errorf("%s: %w: %v; not downloaded", url, errUnsafe, err)
		}
	}
	out, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Fetched{}, fmt.Errorf("%s: %w: %v; not downloaded", url, errUnsafe, err)
	}
	cw := &countWriter{w: out}
	sum, err := s.Copy(ctx, o, cw)
	if cerr := out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: download %s: %w", s.Pkg, url, cerr)
	}
	if err != nil {
		root.Remove(rel)
		return Fetched{}, err
	}
	if !o.LastModified.IsZero() {
		root.Chtimes(rel, o.LastModified, o.LastModified)
	}
	return Fetched{Key: o.Key, URL: url, Size: cw.n, LastModified: o.LastModified, SHA256: sum}, nil
}

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
