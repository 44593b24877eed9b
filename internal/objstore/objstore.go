// Package objstore is the one place finops talks to remote object stores —
// Amazon S3 (and S3-compatible services), Azure Blob Storage and Google
// Cloud Storage — to list a prefix, open an object as a stream and put one.
// The billing sources (fetch, source) download through it, publishing
// (publish: uploads, snapshots, FetchSnapshot) uploads and downloads
// through it, and both save a listing into a folder the same way (Fetch,
// Saver).
//
// The invariant: every remote read either makes progress or ends, within
// its store's idle limit (internal/idle), with an error naming the object
// URL and what to check and showing no secret of the store; a copy whose
// bytes differ from the digest the service keeps is never kept. And a
// listing describes each object as stored — key, size, ETag, modification
// time and, where the service keeps one (Azure, GCS), the MD5 of its bytes
// — so a caller can tell a new or changed object without downloading it
// (TestListingGenerated).
package objstore

import (
	"context"
	"io"
	"time"
)

// Listed is one object of a listing: what a caller needs to decide whether
// an object is new or changed without downloading it, and what Save needs.
type Listed struct {
	Key          string
	Size         int64     // bytes as stored
	MD5          []byte    // the service's Content-MD5 of the stored bytes; empty where it keeps none (S3, composite GCS objects)
	ETag         string    // the service's entity tag, quotes removed; changes whenever the object does
	LastModified time.Time // the object's last change
	Folder       bool      // a folder marker (a hierarchical namespace's directory blob)
}

// Stream is an opened object.
type Stream struct {
	Body io.ReadCloser
	Size int64 // bytes Body will give; < 0: unknown
	// SHA256 is the hex sha256 the object's metadata says its bytes have
	// (what Put stores), "" when it says none.
	SHA256 string
	// Decoded: the service decompressed the stored bytes on the way
	// (GCS's decompressive transcoding), so the listing's MD5 is not of
	// what Body gives.
	Decoded bool
}

// PutOptions are what Put stores with an object.
type PutOptions struct {
	ContentType string
	SHA256      string // hex; stored as the object's "sha256" metadata (SHA256Meta)
}

// SHA256Meta is the user-metadata key holding an object's hex sha256
// (x-amz-meta-sha256 on S3): downloads are checked against it.
const SHA256Meta = "sha256"

// Store is one bucket or container.
type Store interface {
	// List returns every object whose key starts with prefix, each page
	// under the idle limit.
	List(ctx context.Context, prefix string) ([]Listed, error)
	// Open starts streaming one object; ctx governs the reads of its body
	// too.
	Open(ctx context.Context, key string) (*Stream, error)
	// Put stores size bytes of body at key; body must seek, so that a
	// retried request can send it again.
	Put(ctx context.Context, key string, body io.ReadSeeker, size int64, o PutOptions) error
	// URL names an object in messages and in the database:
	// s3://bucket/key, az://account/container/key, gs://bucket/key.
	URL(key string) string

	// reporter is how the store's errors read.
	reporter() *reporter
	// fetchErr adds to an error of List or Open, on the way out of Fetch,
	// what to check (a store whose errors are explained where they are
	// made returns err).
	fetchErr(err error) error
}
