package objstore

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/idle"
	"github.com/finops-oss/finops/internal/sanitize"
)

// Fetch saves the objects of s under prefix that accept takes (nil: all)
// into dir as dir/<key> (Saver.Save), each checked against the MD5 its
// listing gives and the sha256 its metadata gives, where the service keeps
// them. err is a failure of the listing or of a download; it says what to
// check. The caller removes dir.
func Fetch(ctx context.Context, s Store, prefix string, accept func(string) bool, dir string) (files []Fetched, refused []error, err error) {
	objs, err := Listing(ctx, s, prefix)
	if err != nil {
		return nil, nil, err
	}
	return SaveListed(ctx, s, objs, prefix, accept, dir)
}

// Listing is s's List under prefix with Fetch's errors (saying what to
// check): the first half of Fetch, for a caller that decides from the
// listing what to download (an incremental pull, source/pull.go).
func Listing(ctx context.Context, s Store, prefix string) ([]Listed, error) {
	objs, err := s.List(ctx, prefix)
	if err != nil {
		return nil, s.fetchErr(err)
	}
	return objs, nil
}

// SaveListed is the second half of Fetch: it saves the objects of objs (a
// Listing under prefix, or part of one) that accept takes into dir, each
// checked as Fetch checks it.
func SaveListed(ctx context.Context, s Store, objs []Listed, prefix string, accept func(string) bool, dir string) ([]Fetched, []error, error) {
	sv := Saver{Pkg: s.reporter().pkg, URL: s.URL, Copy: func(ctx context.Context, o Listed, w io.Writer) (string, error) {
		sum, err := copyObject(ctx, s, o, w)
		return sum, s.fetchErr(err)
	}}
	return sv.Save(ctx, objs, prefix, accept, dir)
}

// Download streams the object at key into w and returns the sha256 of what
// it wrote, checked as Fetch checks a copy (against the sha256 metadata
// Put stores).
func Download(ctx context.Context, s Store, key string, w io.Writer) (string, error) {
	return copyObject(ctx, s, Listed{Key: key}, w)
}

// copyObject streams o to w and returns the copy's sha256. A copy whose
// MD5 differs from the one the listing gave, or whose sha256 differs from
// the object's metadata, is an error: a torn or altered download is never
// kept.
//
// The request and each read of the body are under the idle limit
// (idle.Watch), inside ctx's own deadline: a server that stops sending, or
// closes the connection mid-body, is an error naming the object, how much
// of it came and what to do.
func copyObject(ctx context.Context, s Store, o Listed, w io.Writer) (string, error) {
	r := s.reporter()
	wctx, watch := idle.Start(ctx, r.idle)
	defer watch.Stop()
	st, err := s.Open(wctx, o.Key)
	watch.Disarm()
	if err != nil {
		if serr := watch.Err(0, -1); serr != nil {
			return "", r.readError("download", s.URL(o.Key), serr)
		}
		return "", err
	}
	defer st.Body.Close()
	sh, md := sha256.New(), md5.New()
	n, err := io.Copy(io.MultiWriter(w, sh, md), watch.Reader(st.Body, st.Size))
	if err != nil {
		return "", r.readError("download", s.URL(o.Key), err)
	}
	if len(o.MD5) == md5.Size && !st.Decoded && !bytes.Equal(md.Sum(nil), o.MD5) {
		return "", fmt.Errorf("%s: download %s: its MD5 is not the one the service keeps (%d bytes read); run the ingest again, and check the object if it repeats",
			r.pkg, s.URL(o.Key), n)
	}
	got := hex.EncodeToString(sh.Sum(nil))
	if st.SHA256 != "" && !strings.EqualFold(st.SHA256, got) {
		return "", fmt.Errorf("%s: download %s: sha256 %s, but the object's metadata says %s", r.pkg, s.URL(o.Key), got, st.SHA256)
	}
	return got, nil
}

// reporter is how one store's errors read: which package they name, where
// the service is, the idle limit and its config key, and the secrets no
// message may show.
type reporter struct {
	pkg     string        // "publish", "fetch": the package whose errors these are
	service string        // the service in advice: an endpoint, "AWS S3"
	setting string        // the idle limit's config key ("" none)
	again   string        // advice for a failed read idle has none for ("" none)
	secrets []string      // removed from every message
	idle    time.Duration // the idle limit (0: idle.DefaultLimit)
}

// readError is a failed read of url: a stall or a cut connection with
// idle's advice, anything else with r.again; no secret in it. It unwraps
// to err.
func (r *reporter) readError(op, url string, err error) error {
	advice := idle.Advice(err, r.service, r.setting)
	if advice == "" {
		advice = r.again
	}
	msg := fmt.Sprintf("%s: %s %s: %v", r.pkg, op, url, err)
	if advice != "" {
		msg += "; " + advice
	}
	return &remoteError{msg: r.redact(msg), err: err}
}

func (r *reporter) redact(msg string) string { return sanitize.Redact(msg, r.secrets...) }

// listStep runs one request of a listing (a page) under the idle limit:
// a page is read whole, so a page that has not come within it is ended.
func listStep[T any](ctx context.Context, r *reporter, url string, next func(context.Context) (T, error)) (T, error) {
	wctx, watch := idle.Start(ctx, r.idle)
	defer watch.Stop()
	v, err := next(wctx)
	if serr := watch.Err(0, -1); err != nil && serr != nil {
		var zero T
		return zero, r.readError("list", url, serr)
	}
	return v, err
}

// remoteError is a service's error with a message of ours (one line, no
// secret) that still unwraps to it.
type remoteError struct {
	msg string
	err error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.err }
