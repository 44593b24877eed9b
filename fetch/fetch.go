// Package fetch downloads a remote billing source's objects — Azure Blob
// Storage (az://, https://<account>.blob.core.windows.net/) and Google Cloud
// Storage (gs://) — into a local folder for ingest, keeping their key paths,
// so that export manifests find their data files beside them and the
// delivery planning of a folder applies unchanged. Its results are
// publish.Fetched, as S3's (publish.S3.Fetch) are.
package fetch

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/finops-oss/finops/internal/idle"
	"github.com/finops-oss/finops/publish"
)

// IdleSetting is the config key of the idle limit, named in the errors of
// a stalled read.
const IdleSetting = "sources.idle_timeout"

// store is one container or bucket, as the download loop sees it.
type store interface {
	// list returns every object under prefix, each request of it under
	// the idle limit; its errors are explained.
	list(ctx context.Context, prefix string) ([]publish.Listed, error)
	// open starts streaming one object and says its length (< 0:
	// unknown); its errors are explained.
	open(ctx context.Context, key string) (body io.ReadCloser, size int64, err error)
	// url names an object in messages and in the database.
	url(key string) string
	// service names the endpoint in advice: "https://storage.googleapis.com".
	service() string
	// redact removes the store's secrets from a message.
	redact(msg string) string
	// idleLimit is how long a read may wait for a byte.
	idleLimit() time.Duration
}

// download saves the objects under prefix that accept takes (nil: all)
// into dir as dir/<key>, as publish.S3.Fetch does (publish.Saver), each
// checked against its MD5 when the service keeps one.
func download(ctx context.Context, s store, prefix string, accept func(string) bool, dir string) (files []publish.Fetched, refused []error, err error) {
	objs, err := s.list(ctx, prefix)
	if err != nil {
		return nil, nil, err
	}
	return saveListed(ctx, s, objs, prefix, accept, dir)
}

// saveListed saves the objects of objs (s's listing under prefix) that
// accept takes into dir, as download does.
func saveListed(ctx context.Context, s store, objs []publish.Listed, prefix string, accept func(string) bool, dir string) ([]publish.Fetched, []error, error) {
	sv := publish.Saver{Pkg: "fetch", URL: s.url, Copy: func(ctx context.Context, o publish.Listed, w io.Writer) (string, error) {
		return copyObject(ctx, s, o, w)
	}}
	return sv.Save(ctx, objs, prefix, accept, dir)
}

// copyObject streams o to w and returns the copy's sha256. A copy whose
// MD5 differs from the one the service keeps is an error: a torn or
// altered download is never imported.
//
// The request and each read of the body are under the idle limit
// (idle.Watch), inside ctx's own deadline: a server that stops sending, or
// closes the connection mid-body, is an error naming the object, how much
// of it came and what to do.
func copyObject(ctx context.Context, s store, o publish.Listed, w io.Writer) (string, error) {
	wctx, watch := idle.Start(ctx, s.idleLimit())
	defer watch.Stop()
	body, size, err := s.open(wctx, o.Key)
	watch.Disarm()
	if err != nil {
		if serr := watch.Err(0, -1); serr != nil {
			return "", readError(s, "download", o.Key, serr)
		}
		return "", err
	}
	defer body.Close()
	sh, md := sha256.New(), md5.New()
	n, err := io.Copy(io.MultiWriter(w, sh, md), watch.Reader(body, size))
	if err != nil {
		return "", readError(s, "download", o.Key, err)
	}
	if len(o.MD5) == md5.Size && !bytes.Equal(md.Sum(nil), o.MD5) {
		return "", fmt.Errorf("fetch: download %s: its MD5 is not the one the service keeps (%d bytes read); run the ingest again, and check the object if it repeats",
			s.url(o.Key), n)
	}
	return hex.EncodeToString(sh.Sum(nil)), nil
}

// readError is a failed read of key: a stall or a cut connection with
// idle's advice, anything else with the advice to run the ingest again;
// no secret of the store in it. It unwraps to err.
func readError(s store, op, key string, err error) error {
	advice := idle.Advice(err, s.service(), IdleSetting)
	if advice == "" {
		advice = "run the ingest again (it resumes where the database stands)"
	}
	return &remoteError{msg: s.redact(fmt.Sprintf("fetch: %s %s: %v; %s", op, s.url(key), err, advice)), err: err}
}

// listStep runs one request of a listing (a page) under the idle limit:
// the client library reads a page whole, so a page that has not come
// within it is ended.
func listStep[T any](ctx context.Context, s store, prefix string, next func(context.Context) (T, error)) (T, error) {
	wctx, watch := idle.Start(ctx, s.idleLimit())
	defer watch.Stop()
	v, err := next(wctx)
	if serr := watch.Err(0, -1); err != nil && serr != nil {
		var zero T
		return zero, readError(s, "list", prefix, serr)
	}
	return v, err
}
