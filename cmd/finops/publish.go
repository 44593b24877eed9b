package main

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/publish"
	"github.com/finops-oss/finops/report"
	"github.com/finops-oss/finops/store"
)

// The publishing half of `finops run`: the run lock, the ledger, the S3
// upload of the reports and of a database snapshot, the team-lead and admin
// emails, and the run's own result (a JSON line, a node-exporter textfile).
//
// Order of a run, after ingest and report:
//
//  1. the run's reports are recorded in the ledger as artifacts;
//  2. the emails are built (a team workbook each) and queued in the ledger,
//     each recipient pending unless it already has this period's email;
//  3. every pending artifact is uploaded — this run's and any an earlier run
//     failed to upload;
//  4. every pending email is sent — this run's and any an earlier run failed
//     to send;
//  5. a snapshot of the database (now holding the ledger of 1–4) is uploaded,
//     and snapshots older than the retention are deleted.
//
// A failure in 3–5 leaves the item pending: exit 4, and the next run retries it.

// publishFlags are the run command's publishing flags.
type publishFlags struct {
	noUpload, noEmail, dryRun, resend bool
	textfile                          string
}

// Defaults for the publishing deadlines.
const (
	defaultUploadTimeout = 10 * time.Minute
	emailStageTimeout    = 10 * time.Minute
)

// sendBackoff is the wait before each retry of a temporarily refused email.
var sendBackoff = []time.Duration{time.Second, 2 * time.Second}

// job is one `finops run` from taking the lock to printing its result.
type job struct {
	m       *Main
	st      *store.Store
	c       *config.Config
	win     analysis.Window
	flags   publishFlags
	lock    *store.RunLock
	run     *store.Run
	stdout  io.Writer // the process's stdout: m.Stdout is io.Discard in JSON mode
	started time.Time // wall clock, for the duration
	secrets []string
	s3      *publish.S3Config   // nil: no upload (not configured or --no-upload)
	smtp    *publish.SMTPConfig // nil: no email
	from    string
	res     runResult
}

// runResult is the one-line JSON result of `finops --log-format json run`.
type runResult struct {
	Command           string            `json:"command"`
	Period            string            `json:"period"`
	Status            string            `json:"status"` // ok, partial, publish_failed, failed, busy, dry_run
	ExitCode          int               `json:"exit_code"`
	StartedAt         time.Time         `json:"started_at"`
	FinishedAt        time.Time         `json:"finished_at"`
	DurationSeconds   float64           `json:"duration_seconds"`
	DryRun            bool              `json:"dry_run,omitempty"`
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
	Error             string            `json:"error,omitempty"`
}

// startJob resolves the publishing settings (and their secrets), takes the
// database's run lock and records the run's start in the ledger.
func (m *Main) startJob(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window, flags publishFlags) (*job, error) {
	j := &job{m: m, st: st, c: c, win: win, flags: flags, stdout: m.Stdout, started: time.Now(),
		res: runResult{Command: "run", Period: win.Label, StartedAt: m.Now(), DryRun: flags.dryRun, Stages: map[string]string{}}}
	if err := j.configure(); err != nil {
		return nil, usageError{err}
	}
	lock, err := store.AcquireRunLock(st.Path(), "run "+win.Label, m.Now())
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			err = busyError{err}
			j.res.Status, j.res.ExitCode, j.res.Error = "busy", ExitBusy, err.Error()
			j.res.FinishedAt = m.Now()
			j.emitJSON()
		}
		return nil, err
	}
	j.lock = lock
	if j.run, err = st.BeginRun(ctx, win.Label); err != nil {
		lock.Release()
		return nil, err
	}
	if m.logFormat == "json" {
		// stdout carries exactly one line, the result; logs go to stderr.
		m.Stdout = io.Discard
	}
	if n := j.run.InterruptedBefore; n > 0 {
		fmt.Fprintf(m.Stdout, "an earlier run was interrupted (%d); this run delivers what it did not\n", n)
		if m.logFormat == "json" {
			m.logger.Warn("an earlier run was interrupted", "runs", n, "emails_requeued", j.run.ResetSendingBefore)
		}
	}
	return j, nil
}

// configure turns the config's publish block into transport settings, with
// the secrets read from the environment or files.
func (j *job) configure() error {
	p := j.c.Publish
	if p.S3.Bucket != "" && !j.flags.noUpload {
		sc, secrets, err := j.m.s3Config(p.S3)
		if err != nil {
			return err
		}
		j.secrets = append(j.secrets, secrets...)
		j.s3 = &sc
	}
	if p.SMTP.Host != "" && !j.flags.noEmail {
		pass, err := p.SMTP.Password(j.m.Getenv)
		if err != nil {
			return err
		}
		j.secrets = append(j.secrets, pass)
		sc, err := smtpConfig(p.SMTP, pass)
		if err != nil {
			return err
		}
		j.smtp, j.from = sc, p.SMTP.From
	}
	return nil
}

// s3Config is the client settings of a publish.s3 block, its keys read from
// the environment or files; secrets lists them, for redaction.
func (m *Main) s3Config(s config.S3) (_ publish.S3Config, secrets []string, err error) {
	ak, sk, tok, err := s.Credentials(m.Getenv)
	if err != nil {
		return publish.S3Config{}, nil, err
	}
	return publish.S3Config{Bucket: s.Bucket, Prefix: s.Prefix, Region: s.Region, Endpoint: s.Endpoint,
		PathStyle: s.PathStyle, AccessKeyID: ak, SecretAccessKey: sk, SessionToken: tok}, []string{ak, sk, tok}, nil
}

func smtpConfig(m config.SMTP, password string) (*publish.SMTPConfig, error) {
	sc := &publish.SMTPConfig{Host: m.Host, Port: m.Port, TLS: m.TLS, Username: m.User, Password: password,
		Timeout: m.Timeout.Duration}
	if m.CAFile != "" {
		pem, err := os.ReadFile(m.CAFile)
		if err != nil {
			return nil, fmt.Errorf("publish.smtp.ca_file: %w", err)
		}
		sc.RootCAs = x509.NewCertPool()
		if !sc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("publish.smtp.ca_file %s: no PEM certificate in it", m.CAFile)
		}
	}
	if host, err := os.Hostname(); err == nil && publish.SafeName(host) == host {
		sc.HelloName = host
	}
	return sc, nil
}

// stage records a stage's status in the ledger and the result line.
func (j *job) stage(name, status string) {
	j.res.Stages[name] = status
	if err := j.st.SetStage(context.Background(), j.run.ID, name, status); err != nil {
		j.m.logger.Warn("could not record a stage in the run ledger", "stage", name, "error", err.Error())
	}
}

// ingested records how the sources fared.
func (j *job) ingested(results []sourceResult) {
	status := store.StageOK
	for _, r := range results {
		if r.err != nil {
			status = store.StagePartial
		}
	}
	j.stage(store.StageIngest, status)
}

// redact removes every known secret from s: whatever a library puts in an
// error, no secret reaches a log line, the ledger or the result.
func (j *job) redact(s string) string { return redact(s, j.secrets...) }

func (j *job) redactErr(err error) error { return redactErr(err, j.secrets...) }

// finish records the run's end, releases the lock, prints the JSON result
// and writes the textfile. It returns err, redacted.
func (j *job) finish(err error) error {
	err = j.redactErr(err)
	code := exitCode(err)
	status := map[int]string{ExitOK: store.RunOK, ExitPartial: store.RunPartial, ExitPublish: store.RunPublishFailed}[code]
	if status == "" {
		status = store.RunFailed
	}
	if j.flags.dryRun && code == ExitOK {
		status = store.RunDryRun
	}
	errText := ""
	if err != nil {
		errText = err.Error()
	}
	if ferr := j.st.FinishRun(context.Background(), j.run.ID, status, errText); ferr != nil {
		j.m.logger.Warn("could not record the run's end in the ledger", "error", ferr.Error())
	}
	j.m.Stdout = j.stdout
	j.res.Status, j.res.ExitCode, j.res.Error = status, code, errText
	j.res.FinishedAt = j.m.Now()
	j.res.DurationSeconds = time.Since(j.started).Seconds()
	j.emitJSON()
	if path := j.textfile(); path != "" && !j.flags.dryRun {
		if terr := j.writeTextfile(path, code); terr != nil {
			j.m.logger.Warn("could not write the metrics textfile", "path", path, "error", terr.Error())
		}
	}
	j.lock.Release()
	return err
}

func (j *job) emitJSON() {
	if j.m.logFormat != "json" {
		return
	}
	b, err := json.Marshal(j.res)
	if err != nil {
		return
	}
	fmt.Fprintln(j.stdout, j.redact(string(b)))
}

func (j *job) textfile() string {
	if j.flags.textfile != "" {
		return j.flags.textfile
	}
	return j.c.Publish.MetricsTextfile
}

// writeTextfile writes the node-exporter textfile atomically (a temporary
// file renamed over it), so the collector never reads half a file.
func (j *job) writeTextfile(path string, code int) error {
	success := 0
	if code == ExitOK {
		success = 1
	}
	num := func(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
	var b strings.Builder
	metric := func(name, help, value string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s %s\n", name, help, name, name, value)
	}
	metric("finops_last_run_timestamp_seconds", "When the last finops run finished (Unix time).", num(j.res.FinishedAt))
	metric("finops_last_run_success", "1 if the last finops run delivered everything (exit 0), else 0.", strconv.Itoa(success))
	metric("finops_last_run_exit_code", "Exit code of the last finops run: 0 ok, 1 failed, 2 config, 3 source missing, 4 upload or email failed.", strconv.Itoa(code))
	metric("finops_last_run_duration_seconds", "How long the last finops run took.", strconv.FormatFloat(j.res.DurationSeconds, 'f', 3, 64))
	if last, err := j.st.LastSuccess(context.Background()); err == nil && !last.IsZero() {
		metric("finops_last_success_timestamp_seconds", "When the last fully successful finops run finished (Unix time).", num(last))
	}
	return report.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// publish runs the stages after the report: upload and email (or, with
// --dry-run, says what they would do). repErr is the report's outcome.
func (j *job) publish(ctx context.Context, res *analysis.Result, repErr error, dir string, formats []string) error {
	switch {
	case repErr == nil:
		j.stage(store.StageReport, store.StageOK)
	case exitCode(repErr) == ExitPartial:
		j.stage(store.StageReport, store.StagePartial)
	default:
		j.stage(store.StageReport, store.StageFailed)
		return repErr
	}
	if res == nil {
		return repErr
	}
	base := report.BaseName(res, report.Meta{})
	var reports []string
	for _, f := range formats {
		if p := filepath.Join(dir, base+"."+f); !slices.Contains(reports, p) {
			reports = append(reports, p)
		}
	}
	j.res.Reports = reports
	if j.flags.dryRun {
		return errors.Join(j.dryRun(ctx, res, reports, dir), repErr)
	}
	var failures []string
	fail := func(format string, args ...any) {
		msg := j.redact(fmt.Sprintf(format, args...))
		failures = append(failures, msg)
		// Text: a line in the run's output (cron mail). JSON: a log record;
		// stdout carries only the result line.
		fmt.Fprintln(j.m.Stdout, msg)
		if j.m.logFormat == "json" {
			j.m.logger.Error("delivery failed", "error", msg)
		}
	}

	if j.s3 != nil {
		for _, p := range reports {
			if err := j.recordArtifact(ctx, p); err != nil {
				fail("upload: %v", err)
			}
		}
	}
	emailFailures := 0
	if j.smtp != nil {
		before := len(failures)
		if err := j.queueEmails(ctx, res, dir, reports, fail); err != nil {
			fail("email: %v", err)
		}
		emailFailures = len(failures) - before
	}
	var client *publish.S3
	uploadOK := false
	if j.s3 != nil {
		var err error
		if client, err = publish.NewS3(ctx, *j.s3); err != nil {
			fail("upload: %v", err)
		} else {
			uploadOK = j.uploadPending(ctx, client, fail)
		}
	} else {
		j.stage(store.StageUpload, store.StageSkipped)
		if j.flags.noUpload {
			fmt.Fprintln(j.m.Stdout, "upload: skipped (--no-upload)")
		} else {
			fmt.Fprintln(j.m.Stdout, "upload: skipped (no publish.s3.bucket in the config)")
		}
	}
	if j.smtp != nil {
		status := j.sendPending(ctx, fail)
		if emailFailures > 0 {
			status = store.StageFailed
		}
		j.stage(store.StageEmail, status)
	} else {
		j.stage(store.StageEmail, store.StageSkipped)
		if j.flags.noEmail {
			fmt.Fprintln(j.m.Stdout, "email: skipped (--no-email)")
		} else {
			fmt.Fprintln(j.m.Stdout, "email: skipped (no publish.smtp.host in the config)")
		}
	}
	if client != nil && uploadOK {
		if !j.uploadSnapshot(ctx, client, fail) {
			uploadOK = false
		}
	}
	if j.s3 != nil {
		status := store.StageOK
		if !uploadOK {
			status = store.StageFailed
		}
		j.stage(store.StageUpload, status)
	}
	if len(failures) > 0 {
		pub := publishError{fmt.Errorf("report written, but not everything was delivered (the next run retries): %s",
			strings.Join(failures, "; "))}
		return errors.Join(pub, repErr)
	}
	return repErr
}

// recordArtifact records a report file as this run's artifact.
func (j *job) recordArtifact(ctx context.Context, path string) error {
	sum, size, err := publish.FileSHA256(path)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	name := filepath.Base(path)
	return j.st.RecordArtifact(ctx, j.run.ID, store.Artifact{Period: j.win.Label, Name: name, Kind: "report",
		Path: abs, ContentType: publish.ContentType(name), SHA256: sum, Size: size})
}

// uploadTimeout is publish.s3.timeout: the deadline of the reports' uploads,
// and again of the snapshot's.
func (j *job) uploadTimeout() time.Duration {
	if t := j.c.Publish.S3.Timeout.Duration; t > 0 {
		return t
	}
	return defaultUploadTimeout
}

// uploadPending uploads every artifact not uploaded yet, of any period.
// After the first failure it stops trying (the service is most likely down)
// and leaves the rest pending. It reports whether everything went up.
func (j *job) uploadPending(ctx context.Context, client *publish.S3, fail func(string, ...any)) bool {
	uctx, cancel := context.WithTimeout(ctx, j.uploadTimeout())
	defer cancel()
	pending, err := j.st.PendingArtifacts(ctx)
	if err != nil {
		fail("upload: %v", err)
		return false
	}
	ok := true
	var uploaded []string
	reports := 0
	for _, a := range pending {
		if a.Kind == "report" {
			reports++
		}
	}
	progress := j.m.bars().steps("upload s3://"+client.Bucket(), reports, "files")
	for _, a := range pending {
		if a.Kind != "report" {
			continue // snapshots: this run uploads a fresh one
		}
		progress.add(0) // draws the bar before the first upload ends
		if !ok {
			j.st.MarkArtifact(ctx, a.Period, a.Name, store.ArtifactFailed, "not tried: an earlier upload in the same run failed")
			j.res.UploadFailed = append(j.res.UploadFailed, a.Name)
			continue
		}
		sum, _, err := publish.FileSHA256(a.Path)
		if err != nil {
			// The file is gone (out folder cleaned): nothing left to upload.
			j.st.MarkArtifact(ctx, a.Period, a.Name, store.ArtifactMissing, "the local file is gone: "+err.Error())
			fmt.Fprintf(j.m.Stdout, "upload: %s of %s was never uploaded and its file is gone; skipped\n", a.Name, a.Period)
			continue
		}
		if sum != a.SHA256 {
			// Rewritten since (a report rerun): upload what is there now.
			if err := j.recordArtifact(ctx, a.Path); err != nil {
				fail("upload: %v", err)
				ok = false
				continue
			}
		}
		key, err := client.Key(a.Period, a.Name)
		if err == nil {
			err = client.Upload(uctx, key, a.Path, a.ContentType, sum)
		}
		if err != nil {
			j.st.MarkArtifact(ctx, a.Period, a.Name, store.ArtifactFailed, j.redact(err.Error()))
			j.res.UploadFailed = append(j.res.UploadFailed, a.Name)
			fail("upload of %s failed: %v", a.Name, err)
			ok = false
			continue
		}
		if err := j.st.MarkUploaded(ctx, j.run.ID, a.Period, a.Name, key, sum); err != nil {
			fail("upload: %v", err)
			ok = false
			continue
		}
		uploaded = append(uploaded, client.URL(key))
		progress.add(1)
	}
	progress.done()
	j.res.Uploaded = append(j.res.Uploaded, uploaded...)
	if n := len(j.res.UploadFailed); n > 1 {
		fmt.Fprintf(j.m.Stdout, "upload: %d files stay pending for the next run: %s\n", n, strings.Join(j.res.UploadFailed, ", "))
	}
	if len(uploaded) > 0 {
		fmt.Fprintf(j.m.Stdout, "uploaded %d files to s3://%s/%s\n", len(uploaded), client.Bucket(),
			publish.PeriodPrefix(client.Prefix(), j.win.Label))
	}
	return ok
}

// uploadSnapshot uploads a fresh snapshot of the database for this period
// and applies the retention.
func (j *job) uploadSnapshot(ctx context.Context, client *publish.S3, fail func(string, ...any)) bool {
	period := j.win.Label
	// Copying and checking a large database takes its time: the deadline
	// covers the network, from here on.
	snap, err := publish.PrepareSnapshot(ctx, j.st, filepath.Dir(j.st.Path()), period)
	if err != nil {
		fail("snapshot: %v", err)
		return false
	}
	defer snap.Remove()
	sctx, cancel := context.WithTimeout(ctx, j.uploadTimeout())
	defer cancel()
	a := store.Artifact{Period: period, Name: snap.Name, Kind: "snapshot", ContentType: publish.ContentType(snap.Name),
		SHA256: snap.SHA256, Size: snap.Size}
	if err := j.st.RecordArtifact(ctx, j.run.ID, a); err != nil {
		fail("snapshot: %v", err)
		return false
	}
	key, err := client.Key(period, snap.Name)
	if err == nil {
		err = client.Upload(sctx, key, snap.Path, a.ContentType, snap.SHA256)
	}
	if err != nil {
		j.st.MarkArtifact(ctx, period, snap.Name, store.ArtifactFailed, j.redact(err.Error()))
		j.res.UploadFailed = append(j.res.UploadFailed, snap.Name)
		fail("upload of the database snapshot failed: %v", err)
		return false
	}
	if err := j.st.MarkUploaded(ctx, j.run.ID, period, snap.Name, key, snap.SHA256); err != nil {
		fail("snapshot: %v", err)
		return false
	}
	j.st.SupersedeSnapshots(ctx, period)
	j.res.Uploaded = append(j.res.Uploaded, client.URL(key))
	fmt.Fprintf(j.m.Stdout, "uploaded database snapshot %s (%d bytes)\n", client.URL(key), snap.Size)
	deleted, err := client.PruneSnapshots(sctx, j.c.Publish.S3.RetentionWeeks, j.m.Now(), period)
	j.res.SnapshotsDeleted = deleted
	for _, k := range deleted {
		fmt.Fprintf(j.m.Stdout, "deleted snapshot %s (older than %d weeks)\n", client.URL(k), j.c.Publish.S3.RetentionWeeks)
	}
	if err != nil {
		fail("retention: %v", err)
		return false
	}
	return true
}

// mailScope is one email of this period: a team's (or the admins') slice,
// its workbook and its recipients.
type mailScope struct {
	scope      string // team name; "" for admins
	result     *analysis.Result
	workbook   string // path of the attached workbook
	recipients []string
	reportURL  string
}

// scopes lists this period's emails: one per team with leads and a row in
// the result, one for the admins. With write, team workbooks are written
// into dir (and recorded as artifacts when uploading).
func (j *job) scopes(ctx context.Context, res *analysis.Result, dir string, reports []string, write bool) ([]mailScope, error) {
	var out []mailScope
	used := map[string]bool{}
	for _, p := range reports {
		used[strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))] = true
	}
	for _, t := range j.c.Teams {
		if len(t.Leads) == 0 {
			continue
		}
		slice := res.ForTeam(t.Name)
		if slice == nil {
			fmt.Fprintf(j.m.Stdout, "email: team %s has no costs in %s; no email\n", t.Name, j.win.Label)
			continue
		}
		team := slice.ByTeam[0].Team
		meta := report.Meta{GeneratedAt: j.m.Now(), Version: version, Team: team}
		// File names keep only [A-Za-z0-9._-]: "数据组" and "平台组" would
		// both be finops-<week>-___; a short hash of the name keeps each
		// team's workbook (and its S3 key) its own.
		base := report.BaseName(slice, meta)
		if used[base] {
			h := sha256.Sum256([]byte(team))
			base += "-" + hex.EncodeToString(h[:3])
		}
		used[base] = true
		wb := filepath.Join(dir, base+".xlsx")
		if write {
			keep := teamLineFilter(j.c, slice)
			win := j.win
			meta.Lines = func(yield func(*finops.BillingLine) error) error {
				return j.st.EachLine(ctx, win.Start, win.End, func(l *finops.BillingLine) error {
					if !keep(l) {
						return nil
					}
					return yield(l)
				})
			}
			if err := writeWorkbook(wb, slice, meta); err != nil {
				return nil, err
			}
			if j.s3 != nil {
				if err := j.recordArtifact(ctx, wb); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, mailScope{scope: t.Name, result: slice, workbook: wb, recipients: t.Leads})
	}
	if admins := j.c.Publish.SMTP.Admins; len(admins) > 0 {
		s := mailScope{result: res, recipients: admins}
		for _, p := range reports {
			switch filepath.Ext(p) {
			case ".xlsx":
				s.workbook = p
			case ".html":
				s.reportURL = j.link(filepath.Base(p))
			}
		}
		if s.workbook == "" {
			s.workbook = filepath.Join(dir, report.BaseName(res, report.Meta{})+".xlsx")
			if write {
				if _, err := report.WriteAll(dir, res, []string{"xlsx"}, report.Meta{GeneratedAt: j.m.Now(), Version: version}); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// writeWorkbook writes a workbook to path, complete or not at all.
func writeWorkbook(path string, r *analysis.Result, meta report.Meta) error {
	return report.WriteFileAtomic(path, func(w io.Writer) error { return report.WriteXLSX(w, r, meta) })
}

// link is the URL of an uploaded report under link_base_url, or "".
func (j *job) link(name string) string {
	base := strings.TrimRight(j.c.Publish.LinkBaseURL, "/")
	if base == "" || j.s3 == nil {
		return ""
	}
	key, err := publish.Key(j.s3.Prefix, j.win.Label, name)
	if err != nil {
		return ""
	}
	return base + "/" + key
}

// queueEmails builds this period's emails and queues them in the ledger for
// the recipients that do not have them yet.
func (j *job) queueEmails(ctx context.Context, res *analysis.Result, dir string, reports []string, fail func(string, ...any)) error {
	scopes, err := j.scopes(ctx, res, dir, reports, true)
	if err != nil {
		return err
	}
	period := j.win.Label
	for _, s := range scopes {
		var valid []string
		for _, r := range s.recipients {
			if err := publish.ValidateAddress(r); err != nil {
				fail("email to %s: %v", scopeName(s.scope), err)
				j.res.EmailsFailed = append(j.res.EmailsFailed, r)
				continue
			}
			valid = append(valid, r)
		}
		if len(valid) == 0 {
			continue
		}
		build := func(gen int) (string, string, []byte, error) {
			wb, err := os.ReadFile(s.workbook)
			if err != nil {
				return "", "", nil, err
			}
			name := filepath.Base(s.workbook)
			subject, text, html, err := report.EmailBody(s.result, report.EmailOptions{Team: s.scope, ReportURL: s.reportURL, Attachment: name})
			if err != nil {
				return "", "", nil, err
			}
			id := publish.MessageID(period, s.scope, gen, j.from)
			msg, err := publish.BuildMessage(publish.Mail{From: j.from, To: valid, Subject: subject, Text: text, HTML: html,
				MessageID: id, Date: j.m.Now(), Attachments: []publish.Attachment{{Name: name, Content: wb}}})
			return id, subject, msg, err
		}
		pending, err := j.st.QueueEmail(ctx, j.run.ID, period, s.scope, valid, j.flags.resend, build)
		if err != nil {
			fail("email to %s: %v", scopeName(s.scope), err)
			continue
		}
		j.res.EmailsAlreadySent += len(valid) - len(pending)
	}
	if n := j.res.EmailsAlreadySent; n > 0 {
		fmt.Fprintf(j.m.Stdout, "email: %d recipients already have the %s email; not sending again (--resend sends it again)\n", n, period)
	}
	return nil
}

func scopeName(scope string) string {
	if scope == "" {
		return "admins"
	}
	return "team " + scope
}

// sendPending sends every queued email some recipient still needs, of any
// period, and returns the stage's status. A server that cannot be reached
// stops the stage (the rest stays queued); a refused recipient is recorded
// and the others still get theirs.
func (j *job) sendPending(ctx context.Context, fail func(string, ...any)) string {
	tr, err := publish.NewTransport(*j.smtp)
	if err != nil {
		fail("email: %v", err)
		return store.StageFailed
	}
	msgs, err := j.st.PendingMessages(ctx)
	if err != nil {
		fail("email: %v", err)
		return store.StageFailed
	}
	ectx, cancel := context.WithTimeout(ctx, emailStageTimeout)
	defer cancel()
	status := store.StageOK
	var unreachable error
	for _, msg := range msgs {
		what := scopeName(msg.Scope) + " " + msg.Period
		if unreachable != nil {
			j.st.MarkEmailFailed(ctx, j.run.ID, msg.Period, msg.Scope, msg.Recipients, "not tried: the mail server was unreachable")
			j.res.EmailsFailed = append(j.res.EmailsFailed, msg.Recipients...)
			continue
		}
		if err := j.st.MarkSending(ctx, j.run.ID, msg.Period, msg.Scope, msg.Recipients); err != nil {
			fail("email to %s: %v", what, err)
			status = store.StageFailed
			continue
		}
		res, err := j.sendWithRetry(ectx, tr, msg)
		if err != nil {
			j.st.MarkEmailFailed(ctx, j.run.ID, msg.Period, msg.Scope, msg.Recipients, j.redact(err.Error()))
			j.res.EmailsFailed = append(j.res.EmailsFailed, msg.Recipients...)
			fail("email to %s (%s) failed: %v", what, strings.Join(msg.Recipients, ", "), err)
			status = store.StageFailed
			var se *publish.SMTPError
			if (errors.As(err, &se) && se.Op == "connect") || ectx.Err() != nil {
				unreachable = err
			}
			continue
		}
		if err := j.st.MarkSent(ctx, j.run.ID, msg.Period, msg.Scope, res.Accepted); err != nil {
			fail("email to %s: sent, but not recorded: %v", what, err)
			status = store.StageFailed
		}
		j.res.EmailsSent = append(j.res.EmailsSent, res.Accepted...)
		fmt.Fprintf(j.m.Stdout, "emailed %s: %s\n", what, strings.Join(res.Accepted, ", "))
		for _, r := range slices.Sorted(maps.Keys(res.Rejected)) {
			rerr := res.Rejected[r]
			j.st.MarkEmailFailed(ctx, j.run.ID, msg.Period, msg.Scope, []string{r}, j.redact(rerr.Error()))
			j.res.EmailsFailed = append(j.res.EmailsFailed, r)
			fail("email to %s: %s refused: %v", what, r, rerr)
			status = store.StageFailed
		}
	}
	return status
}

// sendWithRetry sends one message, retrying temporary refusals (4xx,
// network) with a short backoff within the stage's deadline.
func (j *job) sendWithRetry(ctx context.Context, tr *publish.Transport, msg store.Message) (*publish.SendResult, error) {
	for attempt := 0; ; attempt++ {
		res, err := tr.Send(ctx, j.from, msg.Recipients, msg.MIME)
		if err == nil || !publish.Temporary(err) || attempt >= len(sendBackoff) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(sendBackoff[attempt]):
		}
	}
}

// dryRun says what the run would upload and send, touching neither S3, the
// mail server nor the ledger's delivery state.
func (j *job) dryRun(ctx context.Context, res *analysis.Result, reports []string, dir string) error {
	out := j.m.Stdout
	period := j.win.Label
	would := func(list *[]string, format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		*list = append(*list, line)
		fmt.Fprintln(out, "dry run: would "+line)
	}
	if j.s3 == nil {
		reason := "no publish.s3.bucket configured"
		if j.flags.noUpload {
			reason = "--no-upload"
		}
		fmt.Fprintf(out, "dry run: no upload (%s)\n", reason)
		j.stage(store.StageUpload, store.StageSkipped)
	} else {
		prefix := publish.CleanPrefix(j.s3.Prefix)
		url := func(p, name string) string {
			k, err := publish.Key(prefix, p, name)
			if err != nil {
				return "(" + err.Error() + ")"
			}
			return "s3://" + j.s3.Bucket + "/" + k
		}
		done := map[string]string{} // name → sha256 already uploaded
		arts, err := j.st.Artifacts(ctx, period)
		if err != nil {
			return err
		}
		for _, a := range arts {
			if a.Status == store.ArtifactUploaded {
				done[a.Name] = a.UploadedSHA256
			}
		}
		for _, p := range reports {
			sum, size, err := publish.FileSHA256(p)
			if err != nil {
				return err
			}
			if done[filepath.Base(p)] == sum {
				fmt.Fprintf(out, "dry run: %s is already uploaded with these bytes\n", url(period, filepath.Base(p)))
				continue
			}
			would(&j.res.WouldUpload, "upload %s (%d bytes, %s)", url(period, filepath.Base(p)), size, publish.ContentType(p))
		}
		pending, err := j.st.PendingArtifacts(ctx)
		if err != nil {
			return err
		}
		for _, a := range pending {
			if a.Kind == "report" && a.Period != period {
				would(&j.res.WouldUpload, "upload %s (left over from an earlier run)", url(a.Period, a.Name))
			}
		}
		would(&j.res.WouldUpload, "upload %s (database snapshot: VACUUM INTO, integrity check, gzip)", url(period, publish.SnapshotName(period)))
		if w := j.c.Publish.S3.RetentionWeeks; w > 0 {
			fmt.Fprintf(out, "dry run: would delete snapshots under s3://%s/%s whose period ended more than %d weeks ago\n", j.s3.Bucket, prefix, w)
		}
		j.stage(store.StageUpload, store.StageDryRun)
	}
	if j.smtp == nil {
		reason := "no publish.smtp.host configured"
		if j.flags.noEmail {
			reason = "--no-email"
		}
		fmt.Fprintf(out, "dry run: no email (%s)\n", reason)
		j.stage(store.StageEmail, store.StageSkipped)
		return nil
	}
	scopes, err := j.scopes(ctx, res, dir, reports, false)
	if err != nil {
		return err
	}
	for _, s := range scopes {
		sent, err := j.st.EmailSent(ctx, period, s.scope)
		if err != nil {
			return err
		}
		subject, _, _, err := report.EmailBody(s.result, report.EmailOptions{Team: s.scope, ReportURL: s.reportURL,
			Attachment: filepath.Base(s.workbook)})
		if err != nil {
			return err
		}
		for _, r := range s.recipients {
			switch {
			case publish.ValidateAddress(r) != nil:
				fmt.Fprintf(out, "dry run: would not email %s: not a valid address\n", r)
			case sent[r] && !j.flags.resend:
				j.res.EmailsAlreadySent++
				fmt.Fprintf(out, "dry run: %s already has the %s email (--resend sends it again)\n", r, period)
			default:
				would(&j.res.WouldEmail, "email %s (%s): %q with %s attached", r, scopeName(s.scope),
					publish.SafeHeader(subject), publish.SafeName(filepath.Base(s.workbook)))
			}
		}
	}
	msgs, err := j.st.PendingMessages(ctx)
	if err != nil {
		return err
	}
	for _, msg := range msgs {
		if msg.Period != period {
			would(&j.res.WouldEmail, "email %s (%s of %s, left over from an earlier run): %q", strings.Join(msg.Recipients, ", "),
				scopeName(msg.Scope), msg.Period, publish.SafeHeader(msg.Subject))
		}
	}
	j.stage(store.StageEmail, store.StageDryRun)
	return nil
}
