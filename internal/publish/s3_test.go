package publish

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/finops-oss/finops/internal/objkey"
	"github.com/finops-oss/finops/internal/publish/publishtest"
)

func TestS3ConfigStringHidesKeys(t *testing.T) {
	s := S3Config{Bucket: "b", AccessKeyID: "AKIAEXAMPLEKEY", SecretAccessKey: "s3cr3t-value", SessionToken: "tok-value"}.String()
	for _, secret := range []string{"AKIAEXAMPLEKEY", "s3cr3t-value", "tok-value"} {
		if strings.Contains(s, secret) {
			t.Errorf("String() shows %q: %s", secret, s)
		}
	}
}

func newTestS3(t *testing.T, prefix string) (*S3, *publishtest.S3Server) {
	t.Helper()
	srv := publishtest.StartS3(t, "finops-test-key", "finops-test-secret-value")
	srv.CreateBucket(t, "reports")
	c, err := NewS3(context.Background(), S3Config{Bucket: "reports", Prefix: prefix, Region: srv.Region, Endpoint: srv.URL,
		PathStyle: true, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, MaxAttempts: 2, MaxBackoff: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// TestS3RoundTrip uploads to a real versitygw and reads back the bytes,
// the content type and the sha256 metadata.
func TestS3RoundTrip(t *testing.T) {
	c, srv := newTestS3(t, "/weekly/")
	ctx := context.Background()
	body := bytes.Repeat([]byte("finops,"), 100_000) // 700 kB
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(body)
	sum := hex.EncodeToString(h[:])
	key, err := c.Key("../../2026-W47", "finops-2026-W47.json")
	if err != nil {
		t.Fatal(err)
	}
	if key != "weekly/.._.._2026-W47/finops-2026-W47.json" {
		t.Errorf("key = %q", key)
	}
	if err := c.Upload(ctx, key, path, objkey.ContentType(path), sum); err != nil {
		t.Fatal(err)
	}
	obj := srv.Get(t, "reports", key)
	if !bytes.Equal(obj.Body, body) || obj.ContentType != "application/json" || obj.Metadata[SHA256Meta] != sum {
		t.Errorf("stored object: %d bytes, content type %q, metadata %v", len(obj.Body), obj.ContentType, obj.Metadata)
	}
	// Nothing was written outside the bucket's folder.
	if keys := srv.Keys(t, "reports", ""); !slices.Equal(keys, []string{key}) {
		t.Errorf("bucket holds %v", keys)
	}
	var buf bytes.Buffer
	got, err := c.Download(ctx, key, &buf)
	if err != nil || got != sum || !bytes.Equal(buf.Bytes(), body) {
		t.Errorf("Download: %v, sha %s", err, got)
	}
	if _, err := c.Download(ctx, "weekly/nope/x", &buf); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Download of a missing key: %v, want ErrNotExist", err)
	}
	// A download whose bytes do not match the recorded sha256 is refused.
	bad := sha256.Sum256([]byte("other"))
	srv.Client().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("reports"), Key: aws.String("weekly/x/y"),
		Body: bytes.NewReader(body), Metadata: map[string]string{SHA256Meta: hex.EncodeToString(bad[:])}})
	if _, err := c.Download(ctx, "weekly/x/y", &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("Download of a corrupted object: %v", err)
	}
	if err := c.Upload(ctx, "elsewhere/x", path, "", sum); err == nil {
		t.Error("Upload outside the prefix: no error")
	}
}

// TestS3Down: with the service stopped, an upload fails within the
// caller's deadline (retries included) and says where it was going.
func TestS3Down(t *testing.T) {
	c, srv := newTestS3(t, "weekly")
	srv.Stop()
	path := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(path, []byte("{}"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	err := c.Upload(ctx, "weekly/2026-W47/r.json", path, "application/json", "x")
	if err == nil {
		t.Fatal("upload to a stopped server succeeded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("upload took %v", d)
	}
	if !strings.Contains(err.Error(), "s3://reports/weekly/2026-W47/r.json") || strings.Contains(err.Error(), srv.SecretKey) {
		t.Errorf("error = %v", err)
	}
}

// TestPruneSnapshots deletes only snapshots older than the retention, never
// reports, the current period's snapshot or keys that are not snapshots.
func TestPruneSnapshots(t *testing.T) {
	c, srv := newTestS3(t, "weekly")
	for _, k := range []string{
		"weekly/2026-W40/finops-2026-W40.db.gz",                           // old snapshot: deleted
		"weekly/2026-W40/finops-2026-W40.xlsx",                            // old report: kept
		"weekly/2026-W46/finops-2026-W46.db.gz",                           // ended Nov 16, within 3 weeks of Nov 30: kept
		"weekly/2026-W44/finops-2026-W44.db.gz",                           // ended Nov 2: deleted
		"weekly/2026-W39/finops-2026-W40.db.gz",                           // name does not match its folder: kept
		"weekly/2026-09-01_2026-09-30/finops-2026-09-01_2026-09-30.db.gz", // old range: deleted
		"weekly/junk/finops-junk.db.gz",                                   // unparsable period: kept
		"other/2026-W40/finops-2026-W40.db.gz",                            // outside the prefix: kept
	} {
		srv.Put(t, "reports", k, []byte("x"))
	}
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	deleted, err := c.PruneSnapshots(context.Background(), 3, now, "2026-W48")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"weekly/2026-09-01_2026-09-30/finops-2026-09-01_2026-09-30.db.gz",
		"weekly/2026-W40/finops-2026-W40.db.gz", "weekly/2026-W44/finops-2026-W44.db.gz"}
	if !slices.Equal(deleted, want) {
		t.Errorf("deleted %v, want %v", deleted, want)
	}
	left := srv.Keys(t, "reports", "")
	for _, k := range want {
		if slices.Contains(left, k) {
			t.Errorf("%s still there", k)
		}
	}
	if len(left) != 5 {
		t.Errorf("left %v", left)
	}
	if d, _ := c.PruneSnapshots(context.Background(), 0, now, ""); d != nil {
		t.Errorf("retention 0 deleted %v", d)
	}
}

func TestGzipRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.db")
	data := bytes.Repeat([]byte("SQLite format 3\x00"), 10_000)
	os.WriteFile(src, data, 0o644)
	sum1, size, err := GzipFile(src, filepath.Join(dir, "a.gz"))
	if err != nil || size == 0 {
		t.Fatal(err)
	}
	sum2, _, _ := GzipFile(src, filepath.Join(dir, "b.gz"))
	if sum1 != sum2 {
		t.Error("gzip of the same file differs: the header must carry no time or name")
	}
	if _, _, err := GzipFile(src, filepath.Join(dir, "a.gz")); err == nil {
		t.Error("GzipFile overwrote an existing file")
	}
	if err := GunzipFile(filepath.Join(dir, "a.gz"), filepath.Join(dir, "c.db")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c.db")); !bytes.Equal(b, data) {
		t.Error("gunzip gave other bytes")
	}
}

// TestS3EndpointCredentialsNotShown: an endpoint holding a password or a
// token (config refuses both; a caller of this package may not) is refused
// without quoting it, since the SDK quotes its endpoint whole in every
// error; String names it redacted.
func TestS3EndpointCredentialsNotShown(t *testing.T) {
	for _, ep := range []string{"http://minio:hunter2@127.0.0.1:9000", "http://127.0.0.1:9000/?X-Amz-Security-Token=hunter2"} {
		cfg := S3Config{Bucket: "b", PathStyle: true, AccessKeyID: "AKIAEXAMPLEKEY", SecretAccessKey: "s3cr3t-value", Endpoint: ep}
		_, err := NewS3(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), "the endpoint holds credentials") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: err %v, want a refusal that does not quote it", ep, err)
		}
		if s := cfg.String(); strings.Contains(s, "hunter2") || !strings.Contains(s, "127.0.0.1:9000") {
			t.Errorf("String() = %s", s)
		}
	}
}
