package deliver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/objkey"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/store"
)

// wouldFunc records one thing a dry run would do in a list of the result
// and says it.
type wouldFunc = func(list *[]string, format string, args ...any)

// DryRun says what Deliver would upload and send, touching neither S3, the
// mail server, the chat channels nor the ledger's delivery state. Its
// steps follow Deliver's stages: the uploads, the chat digests, the emails.
func (r *Run) DryRun(ctx context.Context, res *analysis.Result, dir string, reports []string) error {
	result := r.result()
	result.Reports = reports
	out := r.out()
	would := func(list *[]string, format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		*list = append(*list, line)
		fmt.Fprintln(out, "dry run: would "+line)
	}
	for _, m := range r.Transports.Missing {
		// Redacted: a secret file's error names its path, never its bytes,
		// but a library's wording is not ours to trust.
		m = r.redact(m)
		fmt.Fprintf(out, "dry run: note: %s; a real run needs it\n", m)
		if r.LogFailures {
			r.log().Warn("dry run: a secret a real run needs is missing", "missing", m)
		}
	}
	// The teams' emails, workbooks and pages: made only when emailing.
	var scopes []mailScope
	if r.Transports.SMTP != nil {
		var err error
		if scopes, err = r.scopes(ctx, res, dir, reports, false); err != nil {
			return err
		}
	}
	if err := r.dryRunUploads(ctx, res, dir, reports, would); err != nil {
		return err
	}
	if err := r.dryRunDigests(ctx, res, dir, reports, would); err != nil {
		return err
	}
	return r.dryRunEmails(ctx, scopes, would)
}

// dryRunUploads says what the upload stage would send to S3: the reports
// not already there with these bytes, the told teams' files, what earlier
// runs left pending, the database snapshot and the retention.
func (r *Run) dryRunUploads(ctx context.Context, res *analysis.Result, dir string, reports []string, would wouldFunc) error {
	out, period, result := r.out(), r.Window.Label, r.result()
	s3c := r.Transports.S3
	if s3c == nil {
		reason := "no publish.s3.bucket configured"
		if r.Options.NoUpload {
			reason = "--no-upload"
		}
		fmt.Fprintf(out, "dry run: no upload (%s)\n", reason)
		r.Stage(store.StageUpload, store.StageSkipped)
		return nil
	}
	prefix := objkey.CleanPrefix(s3c.Prefix)
	url := func(p, name string) string {
		k, err := objkey.Key(prefix, p, name)
		if err != nil {
			return "(" + err.Error() + ")"
		}
		return "s3://" + s3c.Bucket + "/" + k
	}
	if err := r.dryRunReports(ctx, reports, url, would); err != nil {
		return err
	}
	// Written at delivery, beside the reports: no bytes to count yet;
	// and only when Deliver writes them, for an email or a digest.
	pages := r.teamPages(res, dir, reports)
	for _, t := range r.Config.Teams {
		if p := pages[t.Name]; p != nil && r.told(t) {
			would(&result.WouldUpload, "upload %s (%s's workbook)", url(period, filepath.Base(p.workbook)), scopeName(t.Name))
			would(&result.WouldUpload, "upload %s (%s's page)", url(period, filepath.Base(p.page)), scopeName(t.Name))
		}
	}
	pending, err := r.Store.PendingArtifacts(ctx)
	if err != nil {
		return err
	}
	for _, a := range pending {
		if a.Kind == "report" && a.Period != period {
			would(&result.WouldUpload, "upload %s (left over from an earlier run)", url(a.Period, a.Name))
		}
	}
	would(&result.WouldUpload, "upload %s (database snapshot: VACUUM INTO, integrity check, gzip)", url(period, objkey.SnapshotName(period)))
	if w := r.Config.Publish.S3.RetentionWeeks; w > 0 {
		fmt.Fprintf(out, "dry run: would delete snapshots under s3://%s/%s whose period ended more than %d weeks ago\n", s3c.Bucket, prefix, w)
	}
	r.Stage(store.StageUpload, store.StageDryRun)
	return nil
}

// dryRunReports says which of this run's reports would be uploaded: those
// the ledger does not hold as uploaded with the same sha256.
func (r *Run) dryRunReports(ctx context.Context, reports []string, url func(period, name string) string, would wouldFunc) error {
	out, period, result := r.out(), r.Window.Label, r.result()
	done := map[string]string{} // name → sha256 already uploaded
	arts, err := r.Store.Artifacts(ctx, period)
	if err != nil {
		return err
	}
	for _, a := range arts {
		if a.Status == store.ArtifactUploaded {
			done[a.Name] = a.UploadedSHA256
		}
	}
	for _, p := range reports {
		sum, size, err := ingest.HashFile(ctx, p)
		if err != nil {
			return err
		}
		if done[filepath.Base(p)] == sum {
			fmt.Fprintf(out, "dry run: %s is already uploaded with these bytes\n", url(period, filepath.Base(p)))
			continue
		}
		would(&result.WouldUpload, "upload %s (%d bytes, %s)", url(period, filepath.Base(p)), size, objkey.ContentType(p))
	}
	return nil
}

// dryRunDigests says whether the chat stage would post, and what.
func (r *Run) dryRunDigests(ctx context.Context, res *analysis.Result, dir string, reports []string, would wouldFunc) error {
	out := r.out()
	switch {
	case !r.Config.Watch.Digest:
		fmt.Fprintln(out, "dry run: no chat digest (watch.digest is off)")
		r.Stage(store.StageChat, store.StageSkipped)
	case len(chatChannels(r.Config)) == 0:
		fmt.Fprintln(out, "dry run: no chat digest (no chat channel in watch.channels)")
		r.Stage(store.StageChat, store.StageSkipped)
	default:
		if err := r.dryRunChat(ctx, res, dir, reports, would); err != nil {
			return err
		}
		r.Stage(store.StageChat, store.StageDryRun)
	}
	return nil
}

// dryRunEmails says which emails the email stage would send: each scope's
// recipients not yet sent this period's (or all with --resend), and what
// earlier runs left pending.
func (r *Run) dryRunEmails(ctx context.Context, scopes []mailScope, would wouldFunc) error {
	out, period, result := r.out(), r.Window.Label, r.result()
	if r.Transports.SMTP == nil {
		reason := "no publish.smtp.host configured"
		if r.Options.NoEmail {
			reason = "--no-email"
		}
		fmt.Fprintf(out, "dry run: no email (%s)\n", reason)
		r.Stage(store.StageEmail, store.StageSkipped)
		return nil
	}
	for _, s := range scopes {
		if err := r.dryRunScope(ctx, s, would); err != nil {
			return err
		}
	}
	msgs, err := r.Store.PendingMessages(ctx)
	if err != nil {
		return err
	}
	for _, msg := range msgs {
		if msg.Period != period {
			would(&result.WouldEmail, "email %s (%s of %s, left over from an earlier run): %q", strings.Join(msg.Recipients, ", "),
				scopeName(msg.Scope), msg.Period, publish.SafeHeader(msg.Subject))
		}
	}
	r.Stage(store.StageEmail, store.StageDryRun)
	return nil
}

// dryRunScope says, for each recipient of one scope's email, whether it
// would be sent, is already sent, or cannot be sent.
func (r *Run) dryRunScope(ctx context.Context, s mailScope, would wouldFunc) error {
	out, period, result := r.out(), r.Window.Label, r.result()
	sent, err := r.Store.EmailSent(ctx, period, s.scope)
	if err != nil {
		return err
	}
	subject, _, _, err := report.EmailBody(s.result, report.EmailOptions{Team: s.scope, ReportURL: s.reportURL,
		Attachment: filepath.Base(s.workbook), View: s.view})
	if err != nil {
		return err
	}
	for _, to := range s.recipients {
		switch {
		case publish.ValidateAddress(to) != nil:
			fmt.Fprintf(out, "dry run: would not email %s: not a valid address\n", to)
		case sent[to] && !r.Options.Resend:
			result.EmailsAlreadySent++
			fmt.Fprintf(out, "dry run: %s already has the %s email (--resend sends it again)\n", to, period)
		default:
			link := ""
			if s.reportURL != "" {
				link = ", linking " + s.reportURL
			}
			would(&result.WouldEmail, "email %s (%s): %q with %s attached%s", to, scopeName(s.scope),
				publish.SafeHeader(subject), objkey.SafeName(filepath.Base(s.workbook)), link)
		}
	}
	return nil
}
