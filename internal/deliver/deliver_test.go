package deliver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/store"
)

var week48 = analysis.Window{Start: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
	End: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Label: "2026-W48"}

// newRun is a delivery of week 48 on a fresh store, printing to out.
func newRun(t *testing.T, c *config.Config, tr Transports, opts Options) (*Run, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "finops.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	run, err := st.BeginRun(context.Background(), week48.Label)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	return &Run{Store: st, RunID: run.ID, Config: c, Window: week48, Options: opts, Transports: tr,
		Now: func() time.Time { return week48.End.Add(6 * time.Hour) }, Out: &out}, &out
}

func week48Result() *analysis.Result {
	return &analysis.Result{
		Period:   analysis.Period{Start: week48.Start, End: week48.End, TimeZone: "UTC", Label: week48.Label},
		Currency: "CNY",
		ByTeam:   []analysis.TeamCost{{Team: "数据组", Cost: 1}, {Team: "平台组", Cost: 2}},
	}
}

// TestReportFiles: one path per format (csv: one per table), in the order
// given, a format named twice written once; the base name is report.BaseName's for the week.
func TestReportFiles(t *testing.T) {
	res := week48Result()
	for _, tc := range []struct {
		formats []string
		want    []string
	}{
		{nil, nil},
		{[]string{"xlsx"}, []string{"out/finops-2026-W48.xlsx"}},
		{[]string{"html", "xlsx", "html", "json"}, []string{"out/finops-2026-W48.html", "out/finops-2026-W48.xlsx", "out/finops-2026-W48.json"}},
		// csv is a file per table (report.WriteAll), never finops-2026-W48.csv.
		{[]string{"json", " CSV"}, []string{"out/finops-2026-W48.json", "out/finops-2026-W48-by-resource.csv",
			"out/finops-2026-W48-by-team.csv", "out/finops-2026-W48-tasks.csv", "out/finops-2026-W48-recommendations.csv",
			"out/finops-2026-W48-daily.csv"}},
	} {
		if got := ReportFiles(res, "out", tc.formats); !slices.Equal(got, tc.want) {
			t.Errorf("ReportFiles(%q) = %q, want %q", tc.formats, got, tc.want)
		}
	}
	// A section's table is listed only when the result has the section
	// (report.CSVNames): here energy and chargeback, not trend or allocation.
	res.Energy = &analysis.Energy{PUE: 1}
	res.Chargeback = &analysis.Chargeback{}
	want := []string{"out/finops-2026-W48-by-resource.csv", "out/finops-2026-W48-by-team.csv", "out/finops-2026-W48-tasks.csv",
		"out/finops-2026-W48-recommendations.csv", "out/finops-2026-W48-daily.csv", "out/finops-2026-W48-chargeback.csv",
		"out/finops-2026-W48-energy.csv"}
	if got := ReportFiles(res, "out", []string{"csv"}); !slices.Equal(got, want) {
		t.Errorf("ReportFiles(csv) with energy and chargeback = %q, want %q", got, want)
	}
}

// TestDeliverNothingConfigured: without S3, SMTP and watch.digest a delivery
// touches no server, records the stages skipped and says why, flag or config.
func TestDeliverNothingConfigured(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want []string
	}{
		{Options{}, []string{"upload: skipped (no publish.s3.bucket in the config)", "email: skipped (no publish.smtp.host in the config)",
			"chat: skipped (watch.digest is off in the config)"}},
		{Options{NoUpload: true, NoEmail: true}, []string{"upload: skipped (--no-upload)", "email: skipped (--no-email)",
			"chat: skipped (watch.digest is off in the config)"}},
	} {
		r, out := newRun(t, &config.Config{}, Transports{}, tc.opts)
		if err := r.Deliver(context.Background(), week48Result(), t.TempDir(), nil); err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(strings.TrimSpace(out.String()), "\n"); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: printed %q, want %q", tc.opts, got, tc.want)
		}
		if s := r.Result.Stages; s[store.StageUpload] != store.StageSkipped || s[store.StageEmail] != store.StageSkipped ||
			s[store.StageChat] != store.StageSkipped {
			t.Errorf("%+v: stages %v", tc.opts, s)
		}
		runs, err := r.Store.Runs(context.Background(), week48.Label)
		if err != nil {
			t.Fatal(err)
		}
		if runs[0].Upload != store.StageSkipped || runs[0].Email != store.StageSkipped || runs[0].Chat != store.StageSkipped {
			t.Errorf("%+v: ledger stages upload %q email %q chat %q", tc.opts, runs[0].Upload, runs[0].Email, runs[0].Chat)
		}
	}
}

// TestDeliverUploadRefused: an S3 endpoint that refuses every connection
// leaves the run's report pending in the ledger, marked failed, and the
// error lists it: the next run retries it.
func TestDeliverUploadRefused(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "finops-2026-W48.json")
	if err := os.WriteFile(rep, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &config.Config{}
	c.Publish.S3.Timeout.Duration = 2 * time.Second
	// Port 1 on loopback: nothing listens, the connection is refused at once.
	tr := Transports{S3: &publish.S3Config{Bucket: "b", Prefix: "weekly", Region: "us-east-1",
		Endpoint: "http://127.0.0.1:1", PathStyle: true, AccessKeyID: "k", SecretAccessKey: "s"}}
	r, _ := newRun(t, c, tr, Options{NoEmail: true})
	err := r.Deliver(context.Background(), week48Result(), dir, []string{rep})
	if _, ok := err.(*Incomplete); !ok || !strings.Contains(err.Error(), "upload of finops-2026-W48.json failed") {
		t.Fatalf("Deliver = %v, want an *Incomplete naming the report", err)
	}
	if r.Result.Stages[store.StageUpload] != store.StageFailed || !slices.Equal(r.Result.UploadFailed, []string{"finops-2026-W48.json"}) {
		t.Errorf("result %+v", r.Result)
	}
	pending, err := r.Store.PendingArtifacts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0].Name != "finops-2026-W48.json" || pending[0].Size != 3 {
		t.Errorf("pending artifacts %+v, want the 3-byte report", pending)
	}
}

// TestDryRunSaysWhatItWould: with S3 and no SMTP, a dry run lists each
// report under <prefix>/<period>/ with its size (3 bytes: "{}\n") and the
// snapshot, skips a report the ledger already has uploaded with the same
// bytes, and records nothing as uploaded.
func TestDryRunSaysWhatItWould(t *testing.T) {
	dir := t.TempDir()
	json, html := filepath.Join(dir, "finops-2026-W48.json"), filepath.Join(dir, "finops-2026-W48.html")
	os.WriteFile(json, []byte("{}\n"), 0o644)
	os.WriteFile(html, []byte("<p>\n"), 0o644)
	tr := Transports{S3: &publish.S3Config{Bucket: "b", Prefix: "/weekly/"}}
	c := &config.Config{}
	c.Publish.S3.RetentionWeeks = 8
	r, out := newRun(t, c, tr, Options{})
	ctx := context.Background()
	// The html went up before, with these bytes (sha256 of "<p>\n", by sha256sum).
	const htmlSum = "f0a7bdc758e7fb65677be011d2768bc62a565abe96b96af63e19b0e13055bd10"
	if err := r.Store.RecordArtifact(ctx, r.RunID, store.Artifact{Period: week48.Label, Name: "finops-2026-W48.html", Kind: "report", Path: html, SHA256: htmlSum, Size: 4}); err != nil {
		t.Fatal(err)
	}
	if err := r.Store.MarkUploaded(ctx, r.RunID, week48.Label, "finops-2026-W48.html", "weekly/2026-W48/finops-2026-W48.html", htmlSum); err != nil {
		t.Fatal(err)
	}
	if err := r.DryRun(ctx, week48Result(), dir, []string{json, html}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"upload s3://b/weekly/2026-W48/finops-2026-W48.json (3 bytes, application/json)",
		"upload s3://b/weekly/2026-W48/finops-2026-W48.db.gz (database snapshot: VACUUM INTO, integrity check, gzip)",
	}
	if !slices.Equal(r.Result.WouldUpload, want) {
		t.Errorf("would upload %q, want %q", r.Result.WouldUpload, want)
	}
	for _, line := range []string{
		"dry run: s3://b/weekly/2026-W48/finops-2026-W48.html is already uploaded with these bytes",
		"dry run: would delete snapshots under s3://b/weekly whose period ended more than 8 weeks ago",
		"dry run: no email (no publish.smtp.host configured)",
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	if s := r.Result.Stages; s[store.StageUpload] != store.StageDryRun || s[store.StageEmail] != store.StageSkipped {
		t.Errorf("stages %v", s)
	}
	arts, err := r.Store.Artifacts(ctx, week48.Label)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 {
		t.Errorf("a dry run recorded artifacts: %+v", arts)
	}
}
