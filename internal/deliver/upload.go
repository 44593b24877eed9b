package deliver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/objkey"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/store"
)

// recordArtifact records a report file as this run's artifact.
func (r *Run) recordArtifact(ctx context.Context, path string) error {
	sum, size, err := ingest.HashFile(ctx, path)
	if err != nil {
		return err
	}
	return r.recordReport(ctx, r.Window.Label, path, sum, size)
}

// recordReport records a period's report file whose sha256 and size are
// known.
func (r *Run) recordReport(ctx context.Context, period, path, sum string, size int64) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	name := filepath.Base(path)
	return r.Store.RecordArtifact(ctx, r.RunID, store.Artifact{Period: period, Name: name, Kind: "report",
		Path: abs, ContentType: objkey.ContentType(name), SHA256: sum, Size: size})
}

// uploadTimeout is publish.s3.timeout: the deadline of the reports' uploads,
// and again of the snapshot's.
func (r *Run) uploadTimeout() time.Duration {
	if t := r.Config.Publish.S3.Timeout.Duration; t > 0 {
		return t
	}
	return DefaultUploadTimeout
}

// uploadPending uploads every artifact not uploaded yet, of any period.
// After the first failure it stops trying (the service is most likely down)
// and leaves the rest pending. It reports whether everything went up.
func (r *Run) uploadPending(ctx context.Context, client *publish.S3, fail func(string, ...any)) bool {
	uctx, cancel := context.WithTimeout(ctx, r.uploadTimeout())
	defer cancel()
	pending, err := r.Store.PendingArtifacts(ctx)
	if err != nil {
		fail("upload: %v", err)
		return false
	}
	res := r.result()
	ok := true
	var uploaded []string
	// The bar counts bytes: a workbook of megabytes and a JSON of kilobytes
	// are not one step each. The files' sizes now are what will be sent.
	var size int64
	for _, a := range pending {
		if fi, err := os.Stat(a.Path); err == nil && a.Kind == "report" {
			size += fi.Size()
		}
	}
	progress := r.bytes("upload s3://"+client.Bucket(), size)
	for _, a := range pending {
		if a.Kind != "report" {
			continue // snapshots: this run uploads a fresh one
		}
		progress.Add(0) // draws the bar before the first upload ends
		if !ok {
			r.Store.MarkArtifact(ctx, a.Period, a.Name, store.ArtifactFailed, "not tried: an earlier upload in the same run failed")
			res.UploadFailed = append(res.UploadFailed, a.Name)
			continue
		}
		sum, size, err := ingest.HashFile(ctx, a.Path)
		if err != nil {
			// The file is gone (out folder cleaned): nothing left to upload.
			r.Store.MarkArtifact(ctx, a.Period, a.Name, store.ArtifactMissing, "the local file is gone: "+err.Error())
			fmt.Fprintf(r.out(), "upload: %s of %s was never uploaded and its file is gone; skipped\n", a.Name, a.Period)
			continue
		}
		if sum != a.SHA256 {
			// Rewritten since (a report rerun): upload what is there now.
			if err := r.recordReport(ctx, a.Period, a.Path, sum, size); err != nil {
				fail("upload: %v", err)
				ok = false
				continue
			}
		}
		key, err := client.Key(a.Period, a.Name)
		if err == nil {
			err = client.Upload(uctx, key, a.Path, a.ContentType, sum, publish.WithProgress(progress.Add))
		}
		if err != nil {
			r.Store.MarkArtifact(ctx, a.Period, a.Name, store.ArtifactFailed, r.redact(err.Error()))
			res.UploadFailed = append(res.UploadFailed, a.Name)
			fail("upload of %s failed: %v", a.Name, err)
			ok = false
			continue
		}
		if err := r.Store.MarkUploaded(ctx, r.RunID, a.Period, a.Name, key, sum); err != nil {
			fail("upload: %v", err)
			ok = false
			continue
		}
		uploaded = append(uploaded, client.URL(key))
	}
	progress.Done()
	res.Uploaded = append(res.Uploaded, uploaded...)
	if n := len(res.UploadFailed); n > 1 {
		fmt.Fprintf(r.out(), "upload: %d files stay pending for the next run: %s\n", n, strings.Join(res.UploadFailed, ", "))
	}
	if len(uploaded) > 0 {
		fmt.Fprintf(r.said(), "uploaded %d files to s3://%s/%s\n", len(uploaded), client.Bucket(),
			objkey.PeriodPrefix(client.Prefix(), r.Window.Label))
	}
	return ok
}

// uploadSnapshot uploads a fresh snapshot of the database for this period
// and applies the retention.
func (r *Run) uploadSnapshot(ctx context.Context, client *publish.S3, fail func(string, ...any)) bool {
	period := r.Window.Label
	res := r.result()
	// Copying and checking a large database takes its time: the deadline
	// covers the network, from here on.
	snap, err := publish.PrepareSnapshot(ctx, r.Store, filepath.Dir(r.Store.Path()), period)
	if err != nil {
		fail("snapshot: %v", err)
		return false
	}
	defer snap.Remove()
	sctx, cancel := context.WithTimeout(ctx, r.uploadTimeout())
	defer cancel()
	a := store.Artifact{Period: period, Name: snap.Name, Kind: "snapshot", ContentType: objkey.ContentType(snap.Name),
		SHA256: snap.SHA256, Size: snap.Size}
	if err := r.Store.RecordArtifact(ctx, r.RunID, a); err != nil {
		fail("snapshot: %v", err)
		return false
	}
	key, err := client.Key(period, snap.Name)
	if err == nil {
		progress := r.bytes("upload "+snap.Name, snap.Size)
		progress.Add(0)
		err = client.Upload(sctx, key, snap.Path, a.ContentType, snap.SHA256, publish.WithProgress(progress.Add))
		progress.Done()
	}
	if err != nil {
		r.Store.MarkArtifact(ctx, period, snap.Name, store.ArtifactFailed, r.redact(err.Error()))
		res.UploadFailed = append(res.UploadFailed, snap.Name)
		fail("upload of the database snapshot failed: %v", err)
		return false
	}
	if err := r.Store.MarkUploaded(ctx, r.RunID, period, snap.Name, key, snap.SHA256); err != nil {
		fail("snapshot: %v", err)
		return false
	}
	r.Store.SupersedeSnapshots(ctx, period)
	res.Uploaded = append(res.Uploaded, client.URL(key))
	fmt.Fprintf(r.said(), "uploaded database snapshot %s (%d bytes)\n", client.URL(key), snap.Size)
	weeks := r.Config.Publish.S3.RetentionWeeks
	deleted, err := client.PruneSnapshots(sctx, weeks, r.now(), period)
	res.SnapshotsDeleted = deleted
	for _, k := range deleted {
		fmt.Fprintf(r.said(), "deleted snapshot %s (older than %d weeks)\n", client.URL(k), weeks)
	}
	if err != nil {
		fail("retention: %v", err)
		return false
	}
	return true
}
