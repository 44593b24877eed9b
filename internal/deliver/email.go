package deliver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/objkey"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/store"
)

// mailScope is one email of this period: a team's (or the admins') slice,
// its workbook and its recipients.
type mailScope struct {
	scope      string // team name; "" for admins
	result     *analysis.Result
	view       *report.Audience // what the scope's page, workbook and digest show of chargeback and movers
	workbook   string           // path of the attached workbook
	page       string           // path of a team's own HTML page; "" for admins (theirs is a report)
	recipients []string
	reportURL  string
}

// scopes lists this period's emails: one per team with leads and a row in
// the result, one for the admins. With write, each team's workbook and HTML
// page are written into dir (and recorded as artifacts when uploading); a
// lead's email links the team's page as the admins' links the report.
func (r *Run) scopes(ctx context.Context, res *analysis.Result, dir string, reports []string, write bool) ([]mailScope, error) {
	var out []mailScope
	pages := r.teamPages(res, dir, reports)
	for _, t := range r.Config.Teams {
		if len(t.Leads) == 0 {
			continue
		}
		p := pages[t.Name]
		if p == nil {
			fmt.Fprintf(r.said(), "email: team %s has no cost and nothing to report in %s; no email\n", t.Name, r.Window.Label)
			continue
		}
		if write {
			if err := r.writeTeamPage(ctx, p); err != nil {
				return nil, err
			}
		}
		out = append(out, mailScope{scope: t.Name, result: p.result, view: p.view, workbook: p.workbook, page: p.page, recipients: t.Leads,
			reportURL: r.link(filepath.Base(p.page))})
	}
	if admins := r.Config.Publish.SMTP.Admins; len(admins) > 0 {
		s := mailScope{result: res, view: report.NewAudience(res, "", nil), recipients: admins}
		for _, p := range reports {
			switch filepath.Ext(p) {
			case ".xlsx":
				s.workbook = p
			case ".html":
				s.reportURL = r.link(filepath.Base(p))
			}
		}
		if s.workbook == "" {
			s.workbook = filepath.Join(dir, report.BaseName(res, report.Meta{})+".xlsx")
			if write {
				if _, err := report.WriteAll(dir, res, []string{"xlsx"}, report.Meta{GeneratedAt: r.now(), Version: r.Version}); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// link is the URL of an uploaded report under link_base_url, or "".
func (r *Run) link(name string) string {
	base := strings.TrimRight(r.Config.Publish.LinkBaseURL, "/")
	if base == "" || r.Transports.S3 == nil {
		return ""
	}
	key, err := objkey.Key(r.Transports.S3.Prefix, r.Window.Label, name)
	if err != nil {
		return ""
	}
	return base + "/" + key
}

// queueEmails builds this period's emails and queues them in the ledger for
// the recipients that do not have them yet.
func (r *Run) queueEmails(ctx context.Context, res *analysis.Result, dir string, reports []string, fail func(string, ...any)) error {
	scopes, err := r.scopes(ctx, res, dir, reports, true)
	if err != nil {
		return err
	}
	result, from := r.result(), r.Transports.From
	period := r.Window.Label
	for _, s := range scopes {
		var valid []string
		for _, to := range s.recipients {
			if err := publish.ValidateAddress(to); err != nil {
				fail("email to %s: %v", scopeName(s.scope), err)
				result.EmailsFailed = append(result.EmailsFailed, to)
				continue
			}
			valid = append(valid, to)
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
			subject, text, html, err := report.EmailBody(s.result, report.EmailOptions{Team: s.scope, ReportURL: s.reportURL, Attachment: name,
				View: s.view})
			if err != nil {
				return "", "", nil, err
			}
			id := publish.MessageID(period, s.scope, gen, from)
			msg, err := publish.BuildMessage(publish.Mail{From: from, To: valid, Subject: subject, Text: text, HTML: html,
				MessageID: id, Date: r.now(), Attachments: []publish.Attachment{{Name: name, Content: wb}}})
			return id, subject, msg, err
		}
		pending, err := r.Store.QueueEmail(ctx, r.RunID, period, s.scope, valid, r.Options.Resend, build)
		if err != nil {
			fail("email to %s: %v", scopeName(s.scope), err)
			continue
		}
		result.EmailsAlreadySent += len(valid) - len(pending)
	}
	if n := result.EmailsAlreadySent; n > 0 {
		fmt.Fprintf(r.said(), "email: %d recipients already have the %s email; not sending again (--resend sends it again)\n", n, period)
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
func (r *Run) sendPending(ctx context.Context, fail func(string, ...any)) string {
	tr, err := publish.NewTransport(*r.Transports.SMTP)
	if err != nil {
		fail("email: %v", err)
		return store.StageFailed
	}
	msgs, err := r.Store.PendingMessages(ctx)
	if err != nil {
		fail("email: %v", err)
		return store.StageFailed
	}
	ectx, cancel := context.WithTimeout(ctx, EmailStageTimeout)
	defer cancel()
	result := r.result()
	status := store.StageOK
	var unreachable error
	for _, msg := range msgs {
		what := scopeName(msg.Scope) + " " + msg.Period
		if unreachable != nil {
			r.Store.MarkEmailFailed(ctx, r.RunID, msg.Period, msg.Scope, msg.Recipients, "not tried: the mail server was unreachable")
			result.EmailsFailed = append(result.EmailsFailed, msg.Recipients...)
			continue
		}
		if err := r.Store.MarkSending(ctx, r.RunID, msg.Period, msg.Scope, msg.Recipients); err != nil {
			fail("email to %s: %v", what, err)
			status = store.StageFailed
			continue
		}
		res, err := r.sendWithRetry(ectx, tr, msg)
		if err != nil {
			r.Store.MarkEmailFailed(ctx, r.RunID, msg.Period, msg.Scope, msg.Recipients, r.redact(err.Error()))
			result.EmailsFailed = append(result.EmailsFailed, msg.Recipients...)
			fail("email to %s (%s) failed: %v", what, strings.Join(msg.Recipients, ", "), err)
			status = store.StageFailed
			var se *publish.SMTPError
			if (errors.As(err, &se) && se.Op == "connect") || ectx.Err() != nil {
				unreachable = err
			}
			continue
		}
		if err := r.Store.MarkSent(ctx, r.RunID, msg.Period, msg.Scope, res.Accepted); err != nil {
			fail("email to %s: sent, but not recorded: %v", what, err)
			status = store.StageFailed
		}
		result.EmailsSent = append(result.EmailsSent, res.Accepted...)
		fmt.Fprintf(r.said(), "emailed %s: %s\n", what, strings.Join(res.Accepted, ", "))
		for _, to := range slices.Sorted(maps.Keys(res.Rejected)) {
			rerr := res.Rejected[to]
			r.Store.MarkEmailFailed(ctx, r.RunID, msg.Period, msg.Scope, []string{to}, r.redact(rerr.Error()))
			result.EmailsFailed = append(result.EmailsFailed, to)
			fail("email to %s: %s refused: %v", what, to, rerr)
			status = store.StageFailed
		}
	}
	return status
}

// sendWithRetry sends one message, retrying temporary refusals (4xx,
// network) with a short backoff within the stage's deadline.
func (r *Run) sendWithRetry(ctx context.Context, tr *publish.Transport, msg store.Message) (*publish.SendResult, error) {
	backoff := r.Backoff
	if backoff == nil {
		backoff = DefaultBackoff
	}
	for attempt := 0; ; attempt++ {
		res, err := tr.Send(ctx, r.Transports.From, msg.Recipients, msg.MIME)
		if err == nil || !publish.Temporary(err) || attempt >= len(backoff) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(backoff[attempt]):
		}
	}
}
