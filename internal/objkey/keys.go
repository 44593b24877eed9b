// Package objkey makes the names finops gives stored objects and
// attachments: safe key segments, prefixes, keys and content types, made from
// untrusted labels (period labels, team names and file names from the bills).
//
// It is its own package, importing only the standard library, for two
// reasons: publish, deliver and the CLI all name objects with it, and its
// fuzz target (FuzzKey) builds a coverage-instrumented test binary of this
// package alone instead of one that drags in the S3 and Azure SDKs and SQLite
// (go test -fuzz instruments every package in the binary).
package objkey

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// SafeName reduces s to one safe key segment or file name: letters, digits,
// '.', '_' and '-' (anything else becomes '_'), never empty, "." or "..", at
// most 128 bytes. It is how a period label, a team name or a file name from
// the data becomes part of an S3 key or an attachment name.
func SafeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 128 {
			break
		}
	}
	out := b.String()
	if strings.Trim(out, ".") == "" {
		out = "_" + out
	}
	return out
}

// CleanPrefix makes a configured prefix a clean, relative key prefix: no
// leading or trailing slash, no empty, "." or ".." segments, each segment a
// SafeName. "" stays "" (keys at the bucket root).
func CleanPrefix(prefix string) string {
	var segs []string
	for _, s := range strings.Split(prefix, "/") {
		if s == "" || s == "." {
			continue
		}
		segs = append(segs, SafeName(s))
	}
	return strings.Join(segs, "/")
}

// Key is the S3 key of one file of one period: <prefix>/<period>/<name>.
// period and name are reduced with SafeName, so whatever they contain
// ("../../x", slashes, control characters), the key stays under the prefix.
func Key(prefix, period, name string) (string, error) {
	if period == "" || name == "" {
		return "", fmt.Errorf("objkey: key needs a period and a name")
	}
	p := CleanPrefix(prefix)
	key := path.Join(p, SafeName(period), SafeName(name))
	if !Under(key, p) {
		return "", fmt.Errorf("objkey: key %q escapes prefix %q", key, p)
	}
	return key, nil
}

// PeriodPrefix is the key prefix holding one period's files, with a trailing slash.
func PeriodPrefix(prefix, period string) string {
	p := CleanPrefix(prefix)
	if p == "" {
		return SafeName(period) + "/"
	}
	return p + "/" + SafeName(period) + "/"
}

// SnapshotName is the file name of a period's gzipped database snapshot.
func SnapshotName(period string) string { return "finops-" + SafeName(period) + ".db.gz" }

// Under reports whether key lies strictly below prefix ("" is the bucket
// root) and has no "." or ".." segment: Key's guarantee, checked again by
// the uploader before a key built elsewhere is written or deleted.
func Under(key, prefix string) bool {
	for _, s := range strings.Split(key, "/") {
		if s == "" || s == "." || s == ".." {
			return false
		}
	}
	return prefix == "" || strings.HasPrefix(key, prefix+"/")
}

// ParseS3URL splits s3://bucket/prefix into bucket and cleaned prefix.
func ParseS3URL(s string) (bucket, prefix string, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return "", "", fmt.Errorf("objkey: %q: want s3://bucket/prefix", s)
	}
	if u.User != nil {
		return "", "", fmt.Errorf("objkey: an s3:// URL must not contain credentials")
	}
	return u.Host, CleanPrefix(u.Path), nil
}

// ContentType is the content type an artifact is uploaded with.
func ContentType(name string) string {
	switch {
	case strings.HasSuffix(name, ".xlsx"):
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case strings.HasSuffix(name, ".html"):
		return "text/html; charset=utf-8"
	case strings.HasSuffix(name, ".json"):
		return "application/json"
	case strings.HasSuffix(name, ".csv"):
		return "text/csv; charset=utf-8; header=present"
	case strings.HasSuffix(name, ".gz"):
		return "application/gzip"
	}
	return "application/octet-stream"
}
