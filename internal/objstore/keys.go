package objstore

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// IsS3URL reports whether a source names objects in S3 (s3://…) rather
// than local files.
func IsS3URL(s string) bool { return len(s) >= 5 && strings.EqualFold(s[:5], "s3://") }

// ParseS3URL splits s3://bucket/key into the bucket and the key part as
// written: not cleaned like a publishing prefix, since billing-export keys
// hold characters such as '=' and the key part may be a glob
// (s3://b/cur/*/*.csv.gz). The key part may be empty (the whole bucket).
func ParseS3URL(s string) (bucket, key string, err error) {
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

// SourceKeys turns the key part of a source URL into the prefix to list
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
