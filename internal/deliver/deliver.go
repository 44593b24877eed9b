// Package deliver decides and performs what a run delivers: it records the
// run's reports in the store's run ledger, queues the team-lead and admin
// emails, uploads every pending artifact and a database snapshot through
// publish, and sends every pending email, each marked done in the ledger
// right after the server accepted it. A failure leaves its item pending, and
// the next run delivers it.
//
// Order of a delivery, after the report:
//
//  1. the run's reports are recorded in the ledger as artifacts;
//  2. the emails are built (a team workbook and HTML page each, the page
//     linked when link_base_url is set) and queued in the ledger,
//     each recipient pending unless it already has this period's email;
//  3. every pending artifact is uploaded — this run's and any an earlier run
//     failed to upload;
//  4. every pending email is sent — this run's and any an earlier run failed
//     to send;
//  5. with watch.digest, the weekly digest (report.Digest) of each team is
//     queued for the chat channels that list the team under teams, and the
//     fleet's for those that list none, each channel unless it already has
//     this period's; then every pending digest is sent through
//     publish.Webhook (escaped and cut per platform, as the watch's alerts)
//     — this run's and any an earlier run failed to send (digest.go);
//  6. a snapshot of the database (now holding the ledger of 1–5) is uploaded,
//     and snapshots older than the retention are deleted.
package deliver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/store"
)

// Defaults of a delivery's deadlines and retries.
const (
	DefaultUploadTimeout = 10 * time.Minute
	EmailStageTimeout    = 10 * time.Minute
)

// DefaultBackoff is the wait before each retry of a temporarily refused email.
var DefaultBackoff = []time.Duration{time.Second, 2 * time.Second}

// Options are the run's delivery flags.
type Options struct {
	NoUpload, NoEmail, DryRun, Resend bool
}

// Progress is a bar of bytes sent; Add(0) draws it before the first read.
type Progress interface {
	Add(n int)
	Done()
}

// Result is what a delivery did, for the run's one-line JSON result.
type Result struct {
	Stages            map[string]string `json:"stages"`
	Reports           []string          `json:"reports,omitempty"`
	Uploaded          []string          `json:"uploaded,omitempty"`
	UploadFailed      []string          `json:"upload_failed,omitempty"`
	SnapshotsDeleted  []string          `json:"snapshots_deleted,omitempty"`
	EmailsSent        []string          `json:"emails_sent,omitempty"`
	EmailsFailed      []string          `json:"emails_failed,omitempty"`
	EmailsAlreadySent int               `json:"emails_already_sent"`
	WouldUpload       []string          `json:"would_upload,omitempty"`
	WouldEmail        []string          `json:"would_email,omitempty"`
	// The chat stage (digest.go): each "digest of <scope> to <channel> (<period>)".
	DigestsSent        []string `json:"digests_sent,omitempty"`
	DigestsFailed      []string `json:"digests_failed,omitempty"`
	DigestsAlreadySent int      `json:"digests_already_sent"`
	WouldChat          []string `json:"would_chat,omitempty"`
}

// Run delivers one run's reports. Store, RunID, Config, Window and Options
// are required; the rest have working zero values.
type Run struct {
	Store   *store.Store
	RunID   int64
	Config  *config.Config
	Window  analysis.Window
	Options Options
	// Transports: nil S3 or SMTP means no upload or no email.
	Transports Transports
	Version    string // the program's, in the team workbooks
	// Getenv reads the chat channels' URLs and secrets (url_env,
	// secret_env); nil reads none.
	Getenv func(string) string
	Now    func() time.Time
	Out    io.Writer    // the run's lines: what went out, what failed
	Quiet  bool         // Out gets the failures only (--quiet)
	Log    *slog.Logger // ledger write failures; each delivery failure too with LogFailures
	// LogFailures also logs each failure as a record, for a run whose
	// standard output carries only its JSON result.
	LogFailures bool
	Bytes       func(label string, size int64) Progress // a bar of size bytes; nil: no bars
	Backoff     []time.Duration                         // nil: DefaultBackoff
	Result      *Result                                 // filled as the delivery goes

	pages map[string]*teamPage // each told team's files, named once (teamPages)
}

func (r *Run) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

func (r *Run) out() io.Writer {
	if r.Out == nil {
		return io.Discard
	}
	return r.Out
}

// said is Out for what went well or was skipped as configured: nothing
// with Quiet, so that cron mail holds only the failures.
func (r *Run) said() io.Writer {
	if r.Quiet {
		return io.Discard
	}
	return r.out()
}

func (r *Run) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

func (r *Run) result() *Result {
	if r.Result == nil {
		r.Result = &Result{}
	}
	if r.Result.Stages == nil {
		r.Result.Stages = map[string]string{}
	}
	return r.Result
}

func (r *Run) bytes(label string, size int64) Progress {
	if r.Bytes == nil {
		return noProgress{}
	}
	return r.Bytes(label, size)
}

type noProgress struct{}

func (noProgress) Add(int) {}
func (noProgress) Done()   {}

// redact removes the transports' secrets from s.
func (r *Run) redact(s string) string { return r.Transports.Redact(s) }

// Stage records a stage's status in the ledger and the result; a ledger
// that cannot take it is logged, not fatal: the delivery goes on.
func (r *Run) Stage(name, status string) {
	r.result().Stages[name] = status
	if err := r.Store.SetStage(context.Background(), r.RunID, name, status); err != nil {
		r.log().Warn("could not record a stage in the run ledger", "stage", name, "error", err.Error())
	}
}

// ReportFiles are the paths of a result's report files in dir, in the
// order of formats: one per format, and csv's one per table.
func ReportFiles(res *analysis.Result, dir string, formats []string) []string {
	base := report.BaseName(res, report.Meta{})
	var reports []string
	for _, f := range formats {
		// As report.WriteAll names them.
		f = strings.ToLower(strings.TrimSpace(f))
		names := []string{base + "." + f}
		if f == "csv" {
			names = report.CSVNames(res, base)
		}
		for _, n := range names {
			if p := filepath.Join(dir, n); !slices.Contains(reports, p) {
				reports = append(reports, p)
			}
		}
	}
	return reports
}

// skipped records a stage with nothing to do and says why: the flag that
// turned it off, or the config key it lacks.
func (r *Run) skipped(stage string, byFlag bool, flag, key string) {
	r.Stage(stage, store.StageSkipped)
	reason := "no " + key + " in the config"
	if byFlag {
		reason = flag
	}
	fmt.Fprintf(r.said(), "%s: skipped (%s)\n", stage, reason)
}

// Incomplete is a delivery's outcome when some item stays pending: the
// report was written, the next run retries the rest.
type Incomplete struct{ Failures []string }

func (e *Incomplete) Error() string {
	return "report written, but not everything was delivered (the next run retries): " + strings.Join(e.Failures, "; ")
}

// Deliver uploads and sends the run's reports (in dir, res's files) and
// everything an earlier run left pending. Each failure is printed as it
// happens; the error, an *Incomplete, lists them all.
func (r *Run) Deliver(ctx context.Context, res *analysis.Result, dir string, reports []string) error {
	r.result().Reports = reports
	var failures []string
	fail := func(format string, args ...any) {
		msg := r.redact(fmt.Sprintf(format, args...))
		failures = append(failures, msg)
		// Text: a line in the run's output (cron mail). JSON: a log record;
		// stdout carries only the result line.
		fmt.Fprintln(r.out(), msg)
		if r.LogFailures {
			r.log().Error("delivery failed", "error", msg)
		}
	}
	s3c, smtp := r.Transports.S3, r.Transports.SMTP
	if s3c != nil {
		for _, p := range reports {
			if err := r.recordArtifact(ctx, p); err != nil {
				fail("upload: %v", err)
			}
		}
	}
	// Every team's page and workbook before the upload: the leads' emails
	// attach and link them, the teams' digests link them.
	if smtp != nil || r.digestOn() {
		if err := r.writeTeamPages(ctx, res, dir, reports); err != nil {
			fail("team pages: %v", err)
		}
	}
	emailFailures := 0
	if smtp != nil {
		before := len(failures)
		if err := r.queueEmails(ctx, res, dir, reports, fail); err != nil {
			fail("email: %v", err)
		}
		emailFailures = len(failures) - before
	}
	var client *publish.S3
	uploadOK := false
	if s3c != nil {
		var err error
		if client, err = publish.NewS3(ctx, *s3c); err != nil {
			fail("upload: %v", err)
		} else {
			uploadOK = r.uploadPending(ctx, client, fail)
		}
	} else {
		r.skipped(store.StageUpload, r.Options.NoUpload, "--no-upload", "publish.s3.bucket")
	}
	if smtp != nil {
		status := r.sendPending(ctx, fail)
		if emailFailures > 0 {
			status = store.StageFailed
		}
		r.Stage(store.StageEmail, status)
	} else {
		r.skipped(store.StageEmail, r.Options.NoEmail, "--no-email", "publish.smtp.host")
	}
	switch {
	case !r.Config.Watch.Digest:
		r.Stage(store.StageChat, store.StageSkipped)
		fmt.Fprintln(r.said(), "chat: skipped (watch.digest is off in the config)")
	case len(chatChannels(r.Config)) == 0:
		r.Stage(store.StageChat, store.StageSkipped)
		fmt.Fprintln(r.said(), "chat: skipped (no chat channel in watch.channels)")
	default:
		before := len(failures)
		r.queueDigests(ctx, res, dir, reports, fail)
		status := r.sendDigests(ctx, fail)
		if len(failures) > before {
			status = store.StageFailed
		}
		r.Stage(store.StageChat, status)
	}
	if client != nil && uploadOK {
		if !r.uploadSnapshot(ctx, client, fail) {
			uploadOK = false
		}
	}
	if s3c != nil {
		status := store.StageOK
		if !uploadOK {
			status = store.StageFailed
		}
		r.Stage(store.StageUpload, status)
	}
	if len(failures) > 0 {
		return &Incomplete{Failures: failures}
	}
	return nil
}
