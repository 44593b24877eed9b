package deliver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/publish/publishtest"
	"github.com/finops-oss/finops/internal/store"
)

// byteCount is a Progress that keeps what a bar would show.
type byteCount struct {
	label      string
	size, sent int64
	done       bool
}

func (b *byteCount) Add(n int) { b.sent += int64(n) }
func (b *byteCount) Done()     { b.done = true }

// TestDeliverUploadBytes: against a real versitygw, the upload bars count
// bytes: the reports' bar is sized to the files' bytes and is told as many
// as sent, and the snapshot's bar the bytes of the object stored (each
// total read back from the files and the bucket, not from the bars).
func TestDeliverUploadBytes(t *testing.T) {
	srv := publishtest.StartS3(t, "finops-test-key", "finops-test-secret-value")
	srv.CreateBucket(t, "reports")
	dir := t.TempDir()
	files := map[string][]byte{
		"finops-2026-W48.json": []byte("{}\n"),
		"finops-2026-W48.xlsx": bytes.Repeat([]byte("x"), 200_000),
	}
	var paths []string
	var want int64
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		want += int64(len(body))
	}
	c := &config.Config{}
	c.Publish.S3.Timeout.Duration = 30 * time.Second
	tr := Transports{S3: &publish.S3Config{Bucket: "reports", Prefix: "weekly", Region: srv.Region, Endpoint: srv.URL,
		PathStyle: true, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey}}
	r, out := newRun(t, c, tr, Options{NoEmail: true})
	var bars []*byteCount
	r.Bytes = func(label string, size int64) Progress {
		b := &byteCount{label: label, size: size}
		bars = append(bars, b)
		return b
	}
	if err := r.Deliver(context.Background(), week48Result(), dir, paths); err != nil {
		t.Fatalf("Deliver: %v\n%s", err, out)
	}
	// What went out is said (cron mail without --quiet).
	for _, want := range []string{"uploaded 2 files to s3://reports/weekly/2026-W48", "uploaded database snapshot", "email: skipped"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if len(bars) != 2 {
		t.Fatalf("%d bars, want the reports' and the snapshot's: %+v", len(bars), bars)
	}
	if b := bars[0]; b.label != "upload s3://reports" || b.size != want || b.sent != want || !b.done {
		t.Errorf("reports' bar %+v, want %d bytes sized and sent", *b, want)
	}
	snap := srv.Get(t, "reports", "weekly/2026-W48/finops-2026-W48.db.gz")
	if b := bars[1]; !strings.HasSuffix(b.label, ".db.gz") || b.size != int64(len(snap.Body)) || b.sent != b.size || !b.done {
		t.Errorf("snapshot's bar %+v, want the stored object's %d bytes", *b, len(snap.Body))
	}
}

// TestDeliverQuiet: with Quiet a delivery that goes well prints nothing (the
// same delivery prints its uploads in TestDeliverUploadBytes), and one that
// fails still prints its failure.
func TestDeliverQuiet(t *testing.T) {
	srv := publishtest.StartS3(t, "finops-test-key", "finops-test-secret-value")
	srv.CreateBucket(t, "reports")
	dir := t.TempDir()
	rep := filepath.Join(dir, "finops-2026-W48.json")
	if err := os.WriteFile(rep, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &config.Config{}
	c.Publish.S3.Timeout.Duration = 5 * time.Second
	for _, tc := range []struct {
		name, endpoint, want string
	}{
		{"uploaded", srv.URL, ""},
		{"refused", "http://127.0.0.1:1", "upload of finops-2026-W48.json failed"}, // nothing listens on port 1
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := Transports{S3: &publish.S3Config{Bucket: "reports", Prefix: "weekly", Region: srv.Region, Endpoint: tc.endpoint,
				PathStyle: true, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, MaxAttempts: 1}}
			r, out := newRun(t, c, tr, Options{NoEmail: true})
			r.Quiet = true
			r.Deliver(context.Background(), week48Result(), dir, []string{rep})
			if tc.want == "" && out.Len() != 0 {
				t.Errorf("quiet delivery printed %q", out)
			}
			if tc.want != "" && !strings.Contains(out.String(), tc.want) {
				t.Errorf("quiet failed delivery printed %q, want %q", out, tc.want)
			}
		})
	}
}

// TestDeliverRewrittenPendingOfEarlierWeek: a report of week 47 left
// pending by an earlier run and rewritten since (a report rerun) goes up
// under week 47, its own row marked uploaded with the new sha256; it is not
// recorded again under the week being delivered (48), where it would stay
// pending and go up under the wrong prefix.
func TestDeliverRewrittenPendingOfEarlierWeek(t *testing.T) {
	srv := publishtest.StartS3(t, "finops-test-key", "finops-test-secret-value")
	srv.CreateBucket(t, "reports")
	dir := t.TempDir()
	old := filepath.Join(dir, "finops-2026-W47.json")
	if err := os.WriteFile(old, []byte(`{"week":47}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &config.Config{}
	c.Publish.S3.Timeout.Duration = 30 * time.Second
	tr := Transports{S3: &publish.S3Config{Bucket: "reports", Prefix: "weekly", Region: srv.Region, Endpoint: srv.URL,
		PathStyle: true, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey}}
	r, out := newRun(t, c, tr, Options{NoEmail: true})
	ctx := context.Background()
	// Recorded with the sha256 of an earlier content: the file was rewritten.
	if err := r.Store.RecordArtifact(ctx, r.RunID, store.Artifact{Period: "2026-W47", Name: filepath.Base(old), Kind: "report",
		Path: old, ContentType: "application/json", SHA256: strings.Repeat("0", 64), Size: 1}); err != nil {
		t.Fatal(err)
	}
	if err := r.Deliver(ctx, week48Result(), dir, nil); err != nil {
		t.Fatalf("Deliver: %v\n%s", err, out)
	}
	got := srv.Get(t, "reports", "weekly/2026-W47/finops-2026-W47.json")
	if string(got.Body) != `{"week":47}`+"\n" {
		t.Errorf("week 47's object holds %q", got.Body)
	}
	arts, err := r.Store.Artifacts(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arts {
		if a.Kind != "report" {
			continue
		}
		if a.Period != "2026-W47" || a.Status != store.ArtifactUploaded {
			t.Errorf("artifact %s of %s is %s, want only week 47's, uploaded", a.Name, a.Period, a.Status)
		}
	}
}
