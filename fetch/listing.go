package fetch

import (
	"context"

	"github.com/finops-oss/finops/publish"
)

// Listing lists the blobs under prefix, with the size, ETag, MD5 and
// modification time an incremental pull compares (source/seen.go).
func (a *Azure) Listing(ctx context.Context, prefix string) ([]publish.Listed, error) {
	return a.list(ctx, prefix)
}

// SaveListed downloads the blobs of objs (a Listing under prefix) that
// accept takes into dir, as Fetch does.
func (a *Azure) SaveListed(ctx context.Context, objs []publish.Listed, prefix string, accept func(string) bool, dir string) ([]publish.Fetched, []error, error) {
	return saveListed(ctx, a, objs, prefix, accept, dir)
}

// Listing lists the objects under prefix, with the size, ETag, MD5 and
// modification time an incremental pull compares (source/seen.go).
func (g *GCS) Listing(ctx context.Context, prefix string) ([]publish.Listed, error) {
	return g.list(ctx, prefix)
}

// SaveListed downloads the objects of objs (a Listing under prefix) that
// accept takes into dir, as Fetch does.
func (g *GCS) SaveListed(ctx context.Context, objs []publish.Listed, prefix string, accept func(string) bool, dir string) ([]publish.Fetched, []error, error) {
	return saveListed(ctx, g, objs, prefix, accept, dir)
}
