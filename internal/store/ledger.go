package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
)

// The run ledger records what each `finops run` did: its period, start and
// end, the status of each stage, the artifacts it produced and where they were
// uploaded, and per recipient whether the email went out. A run reads it to
// retry what an earlier run could not deliver and to skip what it already
// delivered. Callers hold the RunLock while they change it.

// Run statuses.
const (
	RunRunning       = "running"
	RunOK            = "ok"
	RunPartial       = "partial"        // delivered, but a source was missing (exit 3)
	RunPublishFailed = "publish_failed" // report written, upload or email failed (exit 4)
	RunFailed        = "failed"
	RunInterrupted   = "interrupted" // the process died; found by the next run
	RunDryRun        = "dry_run"     // --dry-run: reported what it would deliver
)

// Stage names and statuses.
const (
	StageIngest = "ingest"
	StageReport = "report"
	StageUpload = "upload"
	StageEmail  = "email"
	StageChat   = "chat" // the weekly digest to the watch's chat channels (migration 13)

	StageOK      = "ok"
	StagePartial = "partial"
	StageFailed  = "failed"
	StageSkipped = "skipped"
	StageDryRun  = "dry_run"
)

// Artifact statuses.
const (
	ArtifactPending    = "pending"
	ArtifactUploaded   = "uploaded"
	ArtifactFailed     = "failed"
	ArtifactMissing    = "missing"    // the local file is gone: it cannot be uploaded any more
	ArtifactSuperseded = "superseded" // a snapshot of an older period, replaced by a newer snapshot
)

// Email statuses, per recipient.
const (
	EmailPending = "pending"
	EmailSending = "sending"
	EmailSent    = "sent"
	EmailFailed  = "failed"
)

// Run is one row of the ledger.
type Run struct {
	ID                 int64
	Period             string
	StartedAt          time.Time
	FinishedAt         time.Time // zero while running or when interrupted
	Status             string
	Ingest, Report     string // stage statuses; "" when the stage did not run
	Upload, Email      string
	Chat               string
	Error              string
	PID                int
	Host               string
	InterruptedBefore  int // BeginRun: how many earlier runs were found interrupted
	ResetSendingBefore int // BeginRun: recipients whose send was interrupted, queued again
}

// BeginRun records the start of a run for period. Runs still marked running
// were interrupted (the caller holds the run lock, so none of them is alive):
// they are marked so, and recipients whose send they interrupted are queued
// again — the server may or may not have accepted that message, and a weekly
// report sent twice (with the same Message-ID, which mail systems use to
// recognise duplicates) beats one never sent.
func (s *Store) BeginRun(ctx context.Context, period string) (*Run, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: begin run: %w", err)
	}
	defer tx.Rollback()
	now := s.now()
	res, err := tx.ExecContext(ctx, `UPDATE runs SET status = ? WHERE status = ?`, RunInterrupted, RunRunning)
	if err != nil {
		return nil, fmt.Errorf("store: begin run: %w", err)
	}
	interrupted, _ := res.RowsAffected()
	res, err = tx.ExecContext(ctx, `UPDATE run_emails SET status = ?, error = 'a run was interrupted while sending; sending again'
		WHERE status = ?`, EmailPending, EmailSending)
	if err != nil {
		return nil, fmt.Errorf("store: begin run: %w", err)
	}
	sending, _ := res.RowsAffected()
	host, _ := os.Hostname()
	r := &Run{Period: period, StartedAt: time.Unix(now.Unix(), 0), Status: RunRunning, PID: os.Getpid(), Host: host,
		InterruptedBefore: int(interrupted), ResetSendingBefore: int(sending)}
	res, err = tx.ExecContext(ctx, `INSERT INTO runs (period, started_at, status, pid, host) VALUES (?,?,?,?,?)`,
		period, now.Unix(), RunRunning, r.PID, host)
	if err != nil {
		return nil, fmt.Errorf("store: begin run: %w", err)
	}
	if r.ID, err = res.LastInsertId(); err != nil {
		return nil, fmt.Errorf("store: begin run: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: begin run: %w", err)
	}
	return r, nil
}

// SetStage records a stage's status for a run.
func (s *Store) SetStage(ctx context.Context, runID int64, stage, status string) error {
	col := map[string]string{StageIngest: "ingest_status", StageReport: "report_status",
		StageUpload: "upload_status", StageEmail: "email_status", StageChat: "chat_status"}[stage]
	if col == "" {
		return fmt.Errorf("store: unknown stage %q", stage)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE runs SET `+col+` = ? WHERE id = ?`, status, runID); err != nil {
		return fmt.Errorf("store: record %s stage: %w", stage, err)
	}
	return nil
}

// FinishRun records the end of a run. errText must not contain secrets: it
// is stored, uploaded in snapshots and shown by tools.
func (s *Store) FinishRun(ctx context.Context, runID int64, status, errText string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = ?, error = ? WHERE id = ?`,
		status, s.now().Unix(), nullString(errText), runID); err != nil {
		return fmt.Errorf("store: finish run: %w", err)
	}
	return nil
}

// Runs lists the ledger's runs, oldest first; period "" lists all.
func (s *Store) Runs(ctx context.Context, period string) ([]Run, error) {
	q := `SELECT id, period, started_at, finished_at, status, ingest_status, report_status, upload_status,
		email_status, chat_status, error, pid, host FROM runs`
	var args []any
	if period != "" {
		q += ` WHERE period = ?`
		args = append(args, period)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var started int64
		var finished, pid sql.NullInt64
		var ingest, report, upload, email, chat, errText, host sql.NullString
		if err := rows.Scan(&r.ID, &r.Period, &started, &finished, &r.Status, &ingest, &report, &upload, &email,
			&chat, &errText, &pid, &host); err != nil {
			return nil, fmt.Errorf("store: runs: %w", err)
		}
		r.StartedAt = time.Unix(started, 0)
		if finished.Valid {
			r.FinishedAt = time.Unix(finished.Int64, 0)
		}
		r.Ingest, r.Report, r.Upload, r.Email, r.Chat = ingest.String, report.String, upload.String, email.String, chat.String
		r.Error, r.PID, r.Host = errText.String, int(pid.Int64), host.String
		out = append(out, r)
	}
	return out, rows.Err()
}

// LastSuccess is when the last run that delivered everything finished; zero
// when none has.
func (s *Store) LastSuccess(ctx context.Context) (time.Time, error) {
	var t sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT max(finished_at) FROM runs WHERE status = ?`, RunOK).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("store: last success: %w", err)
	}
	if !t.Valid {
		return time.Time{}, nil
	}
	return time.Unix(t.Int64, 0), nil
}

// Artifact is a file a run produced and uploads: a report or a database
// snapshot, one per period and name.
type Artifact struct {
	Period      string
	Name        string // file name, the last part of the S3 key
	Kind        string // "report" or "snapshot"
	Path        string // local file, for reports
	ContentType string
	SHA256      string // hex, of the bytes uploaded
	Size        int64
	RunID       int64 // the run that produced it

	Status         string
	Key            string // S3 key, once uploaded
	UploadedSHA256 string
	UploadedAt     time.Time
	Error          string
}

// RecordArtifact records what a run produced. An artifact already uploaded
// with the same bytes stays uploaded; new or changed bytes are pending.
func (s *Store) RecordArtifact(ctx context.Context, runID int64, a Artifact) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO run_artifacts
		(period, name, kind, path, content_type, sha256, size, run_id, status) VALUES (?,?,?,?,?,?,?,?,?)
		ON CONFLICT (period, name) DO UPDATE SET kind = excluded.kind, path = excluded.path,
			content_type = excluded.content_type, sha256 = excluded.sha256, size = excluded.size,
			run_id = excluded.run_id, error = NULL,
			status = CASE WHEN run_artifacts.status = 'uploaded' AND run_artifacts.uploaded_sha256 = excluded.sha256
				THEN 'uploaded' ELSE 'pending' END`,
		a.Period, a.Name, a.Kind, nullString(a.Path), a.ContentType, a.SHA256, a.Size, runID, ArtifactPending)
	if err != nil {
		return fmt.Errorf("store: record artifact %s: %w", a.Name, err)
	}
	return nil
}

// Artifacts lists the artifacts of a period ("" for all), by period and name.
func (s *Store) Artifacts(ctx context.Context, period string) ([]Artifact, error) {
	return s.artifacts(ctx, `period = ? OR ? = ''`, period, period)
}

// PendingArtifacts lists every artifact not uploaded yet, of any period:
// what this run produced and what earlier runs failed to upload.
func (s *Store) PendingArtifacts(ctx context.Context) ([]Artifact, error) {
	return s.artifacts(ctx, `status IN ('pending', 'failed')`)
}

func (s *Store) artifacts(ctx context.Context, where string, args ...any) ([]Artifact, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT period, name, kind, path, content_type, sha256, size, run_id,
		status, s3_key, uploaded_sha256, uploaded_at, error FROM run_artifacts WHERE `+where+` ORDER BY period, name`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: artifacts: %w", err)
	}
	defer rows.Close()
	var out []Artifact
	for rows.Next() {
		var a Artifact
		var path, key, usha, errText sql.NullString
		var runID, at sql.NullInt64
		if err := rows.Scan(&a.Period, &a.Name, &a.Kind, &path, &a.ContentType, &a.SHA256, &a.Size, &runID,
			&a.Status, &key, &usha, &at, &errText); err != nil {
			return nil, fmt.Errorf("store: artifacts: %w", err)
		}
		a.Path, a.Key, a.UploadedSHA256, a.Error, a.RunID = path.String, key.String, usha.String, errText.String, runID.Int64
		if at.Valid {
			a.UploadedAt = time.Unix(at.Int64, 0)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// MarkUploaded records that an artifact's bytes (sha256) are at key. When
// the artifact was re-recorded with other bytes meanwhile, it stays pending.
func (s *Store) MarkUploaded(ctx context.Context, runID int64, period, name, key, sha256 string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE run_artifacts SET s3_key = ?, uploaded_sha256 = ?, uploaded_at = ?,
		uploaded_run_id = ?, error = NULL, status = CASE WHEN sha256 = ? THEN 'uploaded' ELSE status END
		WHERE period = ? AND name = ?`, key, sha256, s.now().Unix(), runID, sha256, period, name)
	if err != nil {
		return fmt.Errorf("store: mark %s uploaded: %w", name, err)
	}
	return nil
}

// MarkArtifact sets an artifact's status (failed, missing, superseded) with
// the reason. errText must not contain secrets.
func (s *Store) MarkArtifact(ctx context.Context, period, name, status, errText string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE run_artifacts SET status = ?, error = ? WHERE period = ? AND name = ?`,
		status, nullString(errText), period, name)
	if err != nil {
		return fmt.Errorf("store: mark %s %s: %w", name, status, err)
	}
	return nil
}

// SupersedeSnapshots marks the snapshots of other periods that never got
// uploaded as superseded: a newer snapshot, which holds everything they held,
// was uploaded. It returns how many it marked.
func (s *Store) SupersedeSnapshots(ctx context.Context, uploadedPeriod string) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE run_artifacts SET status = ?, error = ?
		WHERE kind = 'snapshot' AND period <> ? AND status IN ('pending', 'failed')`,
		ArtifactSuperseded, "superseded by the snapshot of "+uploadedPeriod, uploadedPeriod)
	if err != nil {
		return 0, fmt.Errorf("store: supersede snapshots: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Message is an email waiting for (some of) its recipients.
type Message struct {
	Period     string
	Scope      string // a team's name; "" for the all-teams email to admins
	Generation int
	MessageID  string
	Subject    string
	MIME       []byte
	Recipients []string // those still to be sent to, sorted
}

// EmailStatus is one recipient's state for one period's email.
type EmailStatus struct {
	Period, Scope, Recipient string
	Status                   string
	Attempts                 int
	SentAt                   time.Time
	Error                    string
}

// BuildFunc builds an email's MIME bytes for the given generation (1, then
// one more per resend); the Message-ID it returns must depend only on the
// period, scope and generation, so a message retried after a crash keeps it.
type BuildFunc func(generation int) (messageID, subject string, mime []byte, err error)

// emailStatus reads each recipient's status of the email of a period and
// scope.
func emailStatus(ctx context.Context, tx *sql.Tx, period, scope string) (map[string]string, error) {
	status := map[string]string{}
	rows, err := tx.QueryContext(ctx, `SELECT recipient, status FROM run_emails WHERE period = ? AND scope = ?`, period, scope)
	if err != nil {
		return nil, fmt.Errorf("store: queue email: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r, st string
		if err := rows.Scan(&r, &st); err != nil {
			return nil, fmt.Errorf("store: queue email: %w", err)
		}
		status[r] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: queue email: %w", err)
	}
	return status, nil
}

// pendingRecipients are the recipients, each once and sorted, who do not
// have the email yet, or all of them with resend.
func pendingRecipients(recipients []string, status map[string]string, resend bool) []string {
	var pending []string
	for _, r := range recipients {
		if slices.Contains(pending, r) {
			continue
		}
		if st, ok := status[r]; !ok || st != EmailSent || resend {
			pending = append(pending, r)
		}
	}
	slices.Sort(pending)
	return pending
}

// forgetDropped forgets the recipients dropped from the list since, unless
// they were sent to: the ledger keeps who got the email.
func forgetDropped(ctx context.Context, tx *sql.Tx, period, scope string, recipients []string, status map[string]string) error {
	for r, st := range status {
		if st != EmailSent && !slices.Contains(recipients, r) {
			if _, err := tx.ExecContext(ctx, `DELETE FROM run_emails WHERE period = ? AND scope = ? AND recipient = ?`,
				period, scope, r); err != nil {
				return fmt.Errorf("store: queue email: %w", err)
			}
		}
	}
	return nil
}

// QueueEmail records the email of one period and scope for recipients and
// returns those that still need it. Recipients that already have it are
// skipped unless resend is set (which starts a new generation, a new
// Message-ID); recipients dropped from the list since are forgotten unless
// they were sent to. When someone still needs it, build is called (inside the
// transaction) and the message stored, so any later run can send it as built.
func (s *Store) QueueEmail(ctx context.Context, runID int64, period, scope string, recipients []string,
	resend bool, build BuildFunc) (pending []string, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: queue email: %w", err)
	}
	defer tx.Rollback()
	gen := 0
	err = tx.QueryRowContext(ctx, `SELECT generation FROM run_messages WHERE period = ? AND scope = ?`, period, scope).Scan(&gen)
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: queue email: %w", err)
	}
	status, err := emailStatus(ctx, tx, period, scope)
	if err != nil {
		return nil, err
	}
	switch {
	case !exists:
		gen = 1
	case resend:
		gen++
	}
	pending = pendingRecipients(recipients, status, resend)
	if !exists {
		// The row the recipients refer to; the message itself follows below.
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_messages (period, scope, generation, message_id, subject, run_id, built_at)
			VALUES (?,?,?,'','',?,?)`, period, scope, gen, runID, s.now().Unix()); err != nil {
			return nil, fmt.Errorf("store: queue email: %w", err)
		}
	}
	if err := forgetDropped(ctx, tx, period, scope, recipients, status); err != nil {
		return nil, err
	}
	for _, r := range pending {
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_emails (period, scope, recipient, status, run_id) VALUES (?,?,?,?,?)
			ON CONFLICT (period, scope, recipient) DO UPDATE SET status = excluded.status, run_id = excluded.run_id,
				error = CASE WHEN run_emails.status = 'sent' THEN NULL ELSE run_emails.error END`,
			period, scope, r, EmailPending, runID); err != nil {
			return nil, fmt.Errorf("store: queue email: %w", err)
		}
	}
	if len(pending) > 0 {
		id, subject, mime, err := build(gen)
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE run_messages SET generation = ?, message_id = ?, subject = ?, mime = ?,
			run_id = ?, built_at = ? WHERE period = ? AND scope = ?`,
			gen, id, subject, mime, runID, s.now().Unix(), period, scope); err != nil {
			return nil, fmt.Errorf("store: queue email: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: queue email: %w", err)
	}
	return pending, nil
}

// EmailSent reports, per recipient, whether the email of a period and scope
// was sent to them (dry runs use it to say what a run would send).
func (s *Store) EmailSent(ctx context.Context, period, scope string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT recipient, status FROM run_emails WHERE period = ? AND scope = ?`, period, scope)
	if err != nil {
		return nil, fmt.Errorf("store: email status: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var r, st string
		if err := rows.Scan(&r, &st); err != nil {
			return nil, fmt.Errorf("store: email status: %w", err)
		}
		out[r] = st == EmailSent
	}
	return out, rows.Err()
}

// PendingMessages lists every built message that some recipient still needs,
// of any period: this run's and those earlier runs failed to send.
func (s *Store) PendingMessages(ctx context.Context) ([]Message, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT m.period, m.scope, m.generation, m.message_id, m.subject, m.mime, e.recipient
		FROM run_messages m JOIN run_emails e ON e.period = m.period AND e.scope = m.scope
		WHERE e.status IN ('pending', 'failed') AND m.mime IS NOT NULL
		ORDER BY m.period, m.scope, e.recipient`)
	if err != nil {
		return nil, fmt.Errorf("store: pending emails: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var r string
		if err := rows.Scan(&m.Period, &m.Scope, &m.Generation, &m.MessageID, &m.Subject, &m.MIME, &r); err != nil {
			return nil, fmt.Errorf("store: pending emails: %w", err)
		}
		if n := len(out); n > 0 && out[n-1].Period == m.Period && out[n-1].Scope == m.Scope {
			out[n-1].Recipients = append(out[n-1].Recipients, r)
			continue
		}
		m.Recipients = []string{r}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MarkSending records that a message is being handed to the SMTP server for
// these recipients: if the process dies now, the next run knows.
func (s *Store) MarkSending(ctx context.Context, runID int64, period, scope string, recipients []string) error {
	return s.setEmails(ctx, runID, period, scope, recipients, EmailSending, "", true)
}

// MarkSent records that the server accepted the message for recipients.
// Once every recipient has it, the stored message is dropped.
func (s *Store) MarkSent(ctx context.Context, runID int64, period, scope string, recipients []string) error {
	if err := s.setEmails(ctx, runID, period, scope, recipients, EmailSent, "", false); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, `UPDATE run_messages SET mime = NULL WHERE period = ? AND scope = ?
		AND NOT EXISTS (SELECT 1 FROM run_emails WHERE period = ? AND scope = ? AND status <> 'sent')`,
		period, scope, period, scope)
	if err != nil {
		return fmt.Errorf("store: record email sent: %w", err)
	}
	return nil
}

// MarkEmailFailed records that sending to recipients failed, and why.
// errText must not contain secrets.
func (s *Store) MarkEmailFailed(ctx context.Context, runID int64, period, scope string, recipients []string, errText string) error {
	return s.setEmails(ctx, runID, period, scope, recipients, EmailFailed, errText, false)
}

func (s *Store) setEmails(ctx context.Context, runID int64, period, scope string, recipients []string,
	status, errText string, attempt bool) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: record email %s: %w", status, err)
	}
	defer tx.Rollback()
	var sentAt any
	if status == EmailSent {
		sentAt = s.now().Unix()
	}
	inc := 0
	if attempt {
		inc = 1
	}
	for _, r := range recipients {
		if _, err := tx.ExecContext(ctx, `UPDATE run_emails SET status = ?, error = ?, run_id = ?,
			attempts = attempts + ?, sent_at = coalesce(?, sent_at) WHERE period = ? AND scope = ? AND recipient = ?`,
			status, nullString(errText), runID, inc, sentAt, period, scope, r); err != nil {
			return fmt.Errorf("store: record email %s: %w", status, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: record email %s: %w", status, err)
	}
	return nil
}

// EmailStatuses lists every recipient's state for a period ("" for all).
func (s *Store) EmailStatuses(ctx context.Context, period string) ([]EmailStatus, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT period, scope, recipient, status, attempts, sent_at, error
		FROM run_emails WHERE period = ? OR ? = '' ORDER BY period, scope, recipient`, period, period)
	if err != nil {
		return nil, fmt.Errorf("store: email statuses: %w", err)
	}
	defer rows.Close()
	var out []EmailStatus
	for rows.Next() {
		var e EmailStatus
		var at sql.NullInt64
		var errText sql.NullString
		if err := rows.Scan(&e.Period, &e.Scope, &e.Recipient, &e.Status, &e.Attempts, &at, &errText); err != nil {
			return nil, fmt.Errorf("store: email statuses: %w", err)
		}
		if at.Valid {
			e.SentAt = time.Unix(at.Int64, 0)
		}
		e.Error = errText.String
		out = append(out, e)
	}
	return out, rows.Err()
}
