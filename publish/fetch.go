package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Fetched is one object Fetch downloaded.
type Fetched struct {
	Key          string    // the object's key in the bucket
	URL          string    // s3://bucket/key, what the object is called in the database and in messages
	Path         string    // the local copy, under the folder given to Fetch
	Size         int64     // bytes written
	LastModified time.Time // the object's; also the local copy's modification time
	SHA256       string    // hex sha256 of the local copy
}

// IsS3URL reports whether a source names objects in S3 (s3://…) rather
// than local files.
func IsS3URL(s string) bool { return len(s) >= 5 && strings.EqualFold(s[:5], "s3://") }

// ParseSourceURL splits s3://bucket/key into the bucket and the key part as
// written: not cleaned like a publishing prefix, since billing-export keys
// hold characters such as '=' and the key part may be a glob
// (s3://b/cur/*/*.csv.gz). The key part may be empty (the whole bucket).
func ParseSourceURL(s string) (bucket, key string, err error) {
	if !IsS3URL(s) {
		return "", "", fmt.Errorf("%q: want s3://bucket/prefix", s)
	}
	bucket, key, _ = strings.Cut(s[5:], "/")
	switch {
	case bucket == "":
		return "", "", fmt.Errorf("%q: no bucket: want s3://bucket/prefix", s)
	case strings.Contains(bucket, "@"):
		// Not echoed: the URL holds a secret.
		return "", "", fmt.Errorf("an s3:// URL must not contain credentials: name them with publish.s3.access_key_env and secret_key_env")
	case strings.ContainsAny(bucket, "*?[]\\ \t\r\n"):
		return "", "", fmt.Errorf("%q: %q is not a bucket name (a glob may only follow the bucket: s3://bucket/prefix/*.csv)", s, bucket)
	}
	return bucket, key, nil
}

// SourceKeys turns the key part of an s3:// source into the prefix to list
// and the keys to take from the listing:
//
//   - a glob ("cur/*/*.csv.gz") lists the folder before its first wildcard
//     and takes the keys path.Match matches ('*' stays within one folder);
//   - "" or a key ending in "/" takes everything under it;
//   - any other key takes that object, or everything under it as a folder
//     ("cur/report" takes "cur/report/…" but not "cur/reports/…").
func SourceKeys(key string) (listPrefix string, match func(string) bool, err error) {
	if i := strings.IndexAny(key, "*?["); i >= 0 {
		if _, err := path.Match(key, ""); err != nil {
			return "", nil, fmt.Errorf("%q: bad pattern: %w", key, err)
		}
		listPrefix = key[:strings.LastIndex(key[:i], "/")+1]
		return listPrefix, func(k string) bool { ok, _ := path.Match(key, k); return ok }, nil
	}
	if key == "" || strings.HasSuffix(key, "/") {
		return key, func(k string) bool { return strings.HasPrefix(k, key) }, nil
	}
	return key, func(k string) bool { return k == key || strings.HasPrefix(k, key+"/") }, nil
}

// LocalName is where an object's key is saved under Fetch's folder: the key
// with its folders, as a relative local path. Keys come from the bucket and
// are not trusted: a key with an empty, "." or ".." segment, a backslash, a
// NUL or anything else that is not a plain local path is refused, so that no
// key can name a file outside the folder.
func LocalName(key string) (string, error) {
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\\\x00") {
			return "", fmt.Errorf("key %q has an empty, \".\" or \"..\" folder or a backslash: it cannot be saved safely", key)
		}
	}
	rel := filepath.FromSlash(key)
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("key %q is not a plain relative path: it cannot be saved safely", key)
	}
	return rel, nil
}

// Fetch downloads the objects under prefix (a key prefix in this client's
// bucket, not cleaned) that match accepts (nil: all) into dir, keeping their
// key paths (dir/<key>), as Saver.Save does; each object is checked against
// its sha256 metadata when it has one.
//
// err is a failure of the listing or of a download; it says what to check
// (bucket, credentials, endpoint). The caller removes dir.
func (c *S3) Fetch(ctx context.Context, prefix string, accept func(key string) bool, dir string) (files []Fetched, refused []error, err error) {
	listed, err := c.Listing(ctx, prefix)
	if err != nil {
		return nil, nil, err
	}
	return c.SaveListed(ctx, listed, prefix, accept, dir)
}

// Listed is one object of a bucket's listing, as Saver.Save needs it.
type Listed struct {
	Key          string
	LastModified time.Time
	Folder       bool   // a folder marker (a hierarchical namespace's directory blob)
	MD5          []byte // the service's Content-MD5, where its listing gives one, for Copy to check
	// Size and ETag are the listing's, for an incremental pull to tell an
	// object it has seen from a new or changed one (source/seen.go).
	Size int64
	ETag string
}

// Saver saves a bucket's listed objects into a local folder: S3.Fetch, and
// fetch's Azure and GCS sources, download this one way.
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
	base := prefix[:strings.LastIndex(prefix, "/")+1]
	for _, o := range objs {
		if o.Folder || strings.HasSuffix(o.Key, "/") || (accept != nil && !accept(o.Key)) {
			continue
		}
		rel, err := LocalName(o.Key)
		if err != nil {
			refused = append(refused, fmt.Errorf("%s: %w: not downloaded; rename the object", s.URL(o.Key), err))
			continue
		}
		if o.Key != prefix && hidden(strings.TrimPrefix(o.Key, base)) {
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

// explain adds to an S3 error what to check: the bucket name, the
// credentials or the endpoint.
func (c *S3) explain(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var hint string
	var api smithy.APIError
	var send *smithyhttp.RequestSendError
	msg := err.Error()
	switch {
	case errors.As(err, &api) && api.ErrorCode() == "NoSuchBucket":
		hint = fmt.Sprintf("bucket %q does not exist%s: check the bucket in the s3:// URL (and publish.s3.endpoint and region)", c.bucket, c.at())
	case errors.As(err, &api) && (api.ErrorCode() == "AccessDenied" || api.ErrorCode() == "Forbidden" ||
		api.ErrorCode() == "AllAccessDisabled"):
		hint = fmt.Sprintf("access denied to bucket %q: the credentials need s3:ListBucket and s3:GetObject on it to read sources, and s3:PutObject and s3:DeleteObject to publish (and for finops doctor's probe)", c.bucket)
	case errors.As(err, &api) && (api.ErrorCode() == "InvalidAccessKeyId" || api.ErrorCode() == "SignatureDoesNotMatch" ||
		api.ErrorCode() == "ExpiredToken" || api.ErrorCode() == "InvalidToken"):
		hint = "the service refused the credentials: check the keys named by publish.s3.access_key_env and secret_key_env " +
			"(or the AWS credential chain's) and publish.s3.region"
	case strings.Contains(msg, "get credentials") || strings.Contains(msg, "failed to refresh cached credentials") ||
		strings.Contains(msg, "failed to retrieve credentials"):
		hint = "no AWS credentials found: set publish.s3.access_key_env and secret_key_env to the names of environment " +
			"variables holding them, or configure the AWS credential chain (AWS_ACCESS_KEY_ID, a profile, an instance role)"
	case errors.As(err, &send):
		hint = fmt.Sprintf("cannot reach the S3 service%s: check publish.s3.endpoint (and path_style for S3-compatible services) and the network", c.at())
	case errors.As(err, &api) && api.ErrorCode() == "PermanentRedirect":
		hint = fmt.Sprintf("bucket %q is in another region: set publish.s3.region to its region", c.bucket)
	default:
		return err
	}
	return fmt.Errorf("%w; %s", err, hint)
}

// at names the custom endpoint, if any, for messages.
func (c *S3) at() string {
	if c.endpoint == "" {
		return ""
	}
	return " at " + c.endpoint
}
