//go:build !finops_nocloud

package objstore

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/publish/publishtest"
)

func TestParseS3URL(t *testing.T) {
	for _, c := range []struct{ in, bucket, key string }{
		{"s3://b", "b", ""},
		{"s3://b/", "b", ""},
		{"S3://b/cur/report", "b", "cur/report"},
		{"s3://b/cur/BILLING_PERIOD=2026-01/*.csv.gz", "b", "cur/BILLING_PERIOD=2026-01/*.csv.gz"},
		{"s3://b/a?b#c", "b", "a?b#c"},
	} {
		b, k, err := ParseS3URL(c.in)
		if err != nil || b != c.bucket || k != c.key {
			t.Errorf("ParseS3URL(%q) = %q, %q, %v; want %q, %q", c.in, b, k, err, c.bucket, c.key)
		}
	}
	for _, in := range []string{"b/cur", "s3://", "s3:///cur", "s3://key:secret@b/cur", "s3://b*/x", "https://b/x"} {
		if _, _, err := ParseS3URL(in); err == nil {
			t.Errorf("ParseS3URL(%q): no error", in)
		} else if strings.Contains(err.Error(), "secret@") {
			t.Errorf("ParseS3URL(%q) echoes credentials: %v", in, err)
		}
	}
}

func TestSourceKeys(t *testing.T) {
	keys := []string{"cur/a.csv", "cur/x/b.csv.gz", "cur/x/y/c.csv.gz", "cur/y/d.csv.gz", "curious/e.csv", "cur"}
	for _, c := range []struct {
		in, list string
		want     []string
	}{
		{"", "", keys},
		{"cur", "cur", []string{"cur/a.csv", "cur/x/b.csv.gz", "cur/x/y/c.csv.gz", "cur/y/d.csv.gz", "cur"}},
		{"cur/", "cur/", []string{"cur/a.csv", "cur/x/b.csv.gz", "cur/x/y/c.csv.gz", "cur/y/d.csv.gz"}},
		{"cur/a.csv", "cur/a.csv", []string{"cur/a.csv"}},
		{"cur/*/*.csv.gz", "cur/", []string{"cur/x/b.csv.gz", "cur/y/d.csv.gz"}},
		{"cur/x/[bc].csv.gz", "cur/x/", []string{"cur/x/b.csv.gz"}},
		{"cur*/?.csv", "", []string{"cur/a.csv", "curious/e.csv"}},
	} {
		list, match, err := SourceKeys(c.in)
		if err != nil {
			t.Fatalf("SourceKeys(%q): %v", c.in, err)
		}
		var got []string
		for _, k := range keys {
			if strings.HasPrefix(k, list) && match(k) {
				got = append(got, k)
			}
		}
		if list != c.list || !slices.Equal(got, c.want) {
			t.Errorf("SourceKeys(%q): list %q, keys %q; want %q, %q", c.in, list, got, c.list, c.want)
		}
	}
	if _, _, err := SourceKeys("cur/[x"); err == nil {
		t.Error("a bad pattern: no error")
	}
}

// TestLocalName: no key from a bucket becomes a path outside the folder.
func TestLocalName(t *testing.T) {
	for _, k := range []string{"../../etc/x", "a/../../../y", "..", ".", "/abs", "a//b", "a/./b", "a/", "",
		`..\..\x`, `a\..\..\x`, "a/\x00b"} {
		if rel, err := LocalName(k); err == nil {
			t.Errorf("LocalName(%q) = %q, want an error", k, rel)
		}
	}
	for k, want := range map[string]string{"a.csv": "a.csv", "cur/BILLING_PERIOD=2026-01/x..y.csv.gz": "cur/BILLING_PERIOD=2026-01/x..y.csv.gz",
		"...": "...", "a/..b/c": "a/..b/c"} {
		if rel, err := LocalName(k); err != nil || rel != filepath.FromSlash(want) {
			t.Errorf("LocalName(%q) = %q, %v", k, rel, err)
		}
	}
}

// TestFetch downloads from a real versitygw, a page of two keys at a time:
// folder markers, hidden names and keys outside the prefix are left out,
// folders are kept, bytes and modification times come through.
func TestFetch(t *testing.T) {
	c, srv := newTestS3(t)
	c.pageSize = 2
	ctx := context.Background()
	big := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	objects := map[string][]byte{
		"exports/a.csv":                       []byte("a\n"),
		"exports/BILLING_PERIOD=2026-01/b.gz": big,
		"exports/sub/c.csv":                   []byte("c\n"),
		"exports/.hidden":                     []byte("h"),
		"exports/.git/config":                 []byte("g"),
		"exports/sub/.DS_Store":               []byte("d"),
		"exportsX/d.csv":                      []byte("d\n"),
		"other/e.csv":                         []byte("e\n"),
	}
	for k, b := range objects {
		srv.Put(t, "reports", k, b)
	}
	srv.Put(t, "reports", "exports/empty/", nil) // a folder marker

	list, match, _ := SourceKeys("exports")
	dir := t.TempDir()
	files, refused, err := c.Fetch(ctx, list, match, dir)
	if err != nil || len(refused) > 0 {
		t.Fatalf("Fetch: %v %v", err, refused)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Key)
		b, err := os.ReadFile(f.Path)
		if err != nil || !bytes.Equal(b, objects[f.Key]) || f.Size != int64(len(b)) || f.URL != "s3://reports/"+f.Key {
			t.Errorf("%s: %d bytes at %s (%v), want %d; URL %s", f.Key, len(b), f.Path, err, len(objects[f.Key]), f.URL)
		}
		if f.Path != filepath.Join(dir, filepath.FromSlash(f.Key)) {
			t.Errorf("%s saved as %s", f.Key, f.Path)
		}
		if fi, err := os.Stat(f.Path); err != nil || !fi.ModTime().Equal(f.LastModified) || f.LastModified.IsZero() {
			t.Errorf("%s: modification time %v, the object's %v", f.Key, fi.ModTime(), f.LastModified)
		}
	}
	slices.Sort(got)
	want := []string{"exports/BILLING_PERIOD=2026-01/b.gz", "exports/a.csv", "exports/sub/c.csv"}
	if !slices.Equal(got, want) {
		t.Errorf("fetched %q, want %q", got, want)
	}

	list, match, _ = SourceKeys("exports/*/*.gz")
	files, _, err = c.Fetch(ctx, list, match, t.TempDir())
	if err != nil || len(files) != 1 || files[0].Key != "exports/BILLING_PERIOD=2026-01/b.gz" {
		t.Errorf("glob: %v, %v", files, err)
	}

	missing, err := NewS3(ctx, S3Config{Bucket: "no-such-bucket", Region: srv.Region, Endpoint: srv.URL, PathStyle: true,
		AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := missing.Fetch(ctx, "exports/", nil, t.TempDir()); err == nil ||
		!strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist at `+srv.URL) {
		t.Errorf("missing bucket: %v", err)
	}
	wrong, _ := NewS3(ctx, S3Config{Bucket: "reports", Region: srv.Region, Endpoint: srv.URL, PathStyle: true,
		AccessKeyID: srv.AccessKey, SecretAccessKey: "not-the-secret", MaxAttempts: 1})
	if _, _, err := wrong.Fetch(ctx, "exports/", nil, t.TempDir()); err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Errorf("wrong secret: %v", err)
	}
}

// TestFetchHostileKeys: a listing with keys no real service stores
// ("../../etc/x") writes nothing outside the folder; those keys are refused,
// one error each, and the others are downloaded.
func TestFetchHostileKeys(t *testing.T) {
	objects := map[string][]byte{"../../etc/x": []byte("pwned"), "a/../../../y": []byte("pwned"), "/abs": []byte("pwned"),
		"ok/../../z": []byte("pwned"), `..\..\w`: []byte("pwned"), "ok/good.csv": []byte("fine\n")}
	url := publishtest.HostileS3(t, "evil", objects)
	c, err := NewS3(context.Background(), S3Config{Bucket: "evil", Region: "us-east-1", Endpoint: url, PathStyle: true,
		AccessKeyID: "k", SecretAccessKey: "s", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	sandbox := t.TempDir()
	dir := filepath.Join(sandbox, "a", "b", "dl")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files, refused, err := c.Fetch(context.Background(), "", nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Key != "ok/good.csv" || len(refused) != 5 {
		t.Errorf("fetched %v, refused %v", files, refused)
	}
	for _, e := range refused {
		if !strings.Contains(e.Error(), "s3://evil/") || !strings.Contains(e.Error(), "not downloaded") {
			t.Errorf("refusal does not name the object or say what happened: %v", e)
		}
	}
	var written []string
	filepath.WalkDir(sandbox, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, p)
		}
		return nil
	})
	if !slices.Equal(written, []string{filepath.Join(dir, "ok", "good.csv")}) {
		t.Errorf("files written: %q", written)
	}
}
