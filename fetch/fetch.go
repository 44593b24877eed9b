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

	"github.com/finops-oss/finops/publish"
)

// store is one container or bucket, as the download loop sees it.
type store interface {
	// list returns every object under prefix; its errors are explained.
	list(ctx context.Context, prefix string) ([]publish.Listed, error)
	// open streams one object; its errors are explained.
	open(ctx context.Context, key string) (io.ReadCloser, error)
	// url names an object in messages and in the database.
	url(key string) string
}

// download saves the objects under prefix that accept takes (nil: all)
// into dir as dir/<key>, as publish.S3.Fetch does (publish.Saver), each
// checked against its MD5 when the service keeps one.
func download(ctx context.Context, s store, prefix string, accept func(string) bool, dir string) (files []publish.Fetched, refused []error, err error) {
	objs, err := s.list(ctx, prefix)
	if err != nil {
		return nil, nil, err
	}
	sv := publish.Saver{Pkg: "fetch", URL: s.url, Copy: func(ctx context.Context, o publish.Listed, w io.Writer) (string, error) {
		return copyObject(ctx, s, o, w)
	}}
	return sv.Save(ctx, objs, prefix, accept, dir)
}

// copyObject streams o to w and returns the copy's sha256. A copy whose
// MD5 differs from the one the service keeps is an error: a torn or
// altered download is never imported.
func copyObject(ctx context.Context, s store, o publish.Listed, w io.Writer) (string, error) {
	body, err := s.open(ctx, o.Key)
	if err != nil {
		return "", err
	}
	defer body.Close()
	sh, md := sha256.New(), md5.New()
	n, err := io.Copy(io.MultiWriter(w, sh, md), body)
	if err != nil {
		return "", fmt.Errorf("fetch: download %s: %w; run the ingest again (it resumes where the database stands)", s.url(o.Key), err)
	}
	if len(o.MD5) == md5.Size && !bytes.Equal(md.Sum(nil), o.MD5) {
		return "", fmt.Errorf("fetch: download %s: its MD5 is not the one the service keeps (%d bytes read); run the ingest again, and check the object if it repeats",
			s.url(o.Key), n)
	}
	return hex.EncodeToString(sh.Sum(nil)), nil
}
