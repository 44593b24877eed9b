package publish

import (
	"context"
	"io"
	"strings"
)

// Listing lists the objects under prefix as Saver.Save takes them, with
// the size, ETag and modification time an incremental pull compares
// (source/seen.go). Its errors say what to check.
func (c *S3) Listing(ctx context.Context, prefix string) ([]Listed, error) {
	objs, err := c.List(ctx, prefix)
	if err != nil {
		return nil, c.explain(err)
	}
	listed := make([]Listed, len(objs))
	for i, o := range objs {
		listed[i] = Listed{Key: o.Key, LastModified: o.LastModified, Size: o.Size, ETag: o.ETag}
	}
	return listed, nil
}

// SaveListed downloads the objects of objs (a Listing under prefix) that
// accept takes into dir, as Fetch does (Saver.Save).
func (c *S3) SaveListed(ctx context.Context, objs []Listed, prefix string, accept func(string) bool, dir string) ([]Fetched, []error, error) {
	s := Saver{Pkg: "publish", URL: c.URL, Copy: func(ctx context.Context, o Listed, w io.Writer) (string, error) {
		sum, err := c.Download(ctx, o.Key, w)
		return sum, c.explain(err)
	}}
	return s.Save(ctx, objs, prefix, accept, dir)
}

// Wanted reports whether Save, given o of a listing under prefix, would
// download it or refuse it by name: not a folder marker, taken by accept
// (nil: all), and not hidden below the prefix unless its key cannot be
// saved at all (which Save refuses, naming it).
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
