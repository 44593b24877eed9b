package publishtest

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"
)

// HostileS3 starts a minimal S3 endpoint (path style, any credentials) that
// lists exactly the keys it is given — keys such as "../../etc/x" that a
// real service refuses to store but a hostile or broken one may list — and
// serves their bodies by the literal request path. It answers ListObjectsV2
// (one page) and GetObject; a bucket other than bucket is NoSuchBucket. It
// stops when the test ends; the URL is its endpoint.
func HostileS3(t testing.TB, bucket string, objects map[string][]byte) string {
	t.Helper()
	keys := make([]string, 0, len(objects))
	for k := range objects {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	modified := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.EscapedPath()
		b, key, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if b != bucket {
			s3Error(w, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
			return
		}
		if key == "" && r.Method == http.MethodGet {
			prefix := r.URL.Query().Get("prefix")
			var sb strings.Builder
			sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
			fmt.Fprintf(&sb, "<Name>%s</Name><Prefix>%s</Prefix><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>", esc(bucket), esc(prefix))
			n := 0
			for _, k := range keys {
				if strings.HasPrefix(k, prefix) {
					n++
					fmt.Fprintf(&sb, "<Contents><Key>%s</Key><LastModified>%s</LastModified><ETag>&quot;0&quot;</ETag><Size>%d</Size><StorageClass>STANDARD</StorageClass></Contents>",
						esc(k), modified, len(objects[k]))
				}
			}
			fmt.Fprintf(&sb, "<KeyCount>%d</KeyCount></ListBucketResult>", n)
			w.Header().Set("Content-Type", "application/xml")
			w.Write([]byte(sb.String()))
			return
		}
		for _, k := range keys {
			if k == key || strings.TrimPrefix(r.URL.Path, "/"+bucket+"/") == k {
				w.Header().Set("Content-Length", fmt.Sprint(len(objects[k])))
				w.Header().Set("Last-Modified", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat))
				w.Write(objects[k])
				return
			}
		}
		s3Error(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func s3Error(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, esc(msg))
}
