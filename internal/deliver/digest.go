package deliver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/store"
)

// Deadlines of the chat stage: all its sends together, and one send with
// its retries (publish.Webhook's own default).
const (
	ChatStageTimeout = 5 * time.Minute
	ChatSendTimeout  = 30 * time.Second
)

// chatScope is one digest of this period: a team's (or the fleet's) slice
// and the chat channels it goes to.
type chatScope struct {
	scope     string // the team's name as configured; "" for the fleet
	result    *analysis.Result
	view      *report.Audience // the one the scope's email, page and workbook show
	channels  []string         // config.Channel.Name, in watch.channels order
	reportURL string
}

// chatChannels are the watch's webhook channels by name: email channels
// are left out, the digest already goes by email.
func chatChannels(c *config.Config) map[string]config.Channel {
	out := map[string]config.Channel{}
	for i, ch := range c.Watch.Channels {
		if ch.Type != "email" {
			out[ch.Name(i)] = ch
		}
	}
	return out
}

// digestRoute names the channels that take a scope's digest. The watch
// routes a team's alerts to the channels that list it under teams and to
// those that list none; for the digest a channel that lists none is the
// admins' channel: it gets the fleet digest, which has every team's cost,
// and not one more digest per team.
func digestRoute(c *config.Config, scope string) []string {
	var out []string
	for i, ch := range c.Watch.Channels {
		if ch.Type == "email" {
			continue
		}
		if scope == "" && len(ch.Teams) == 0 || scope != "" && ch.Lists(scope) {
			out = append(out, ch.Name(i))
		}
	}
	return out
}

// chatScopes lists this period's digests: one per team with a channel and
// a row in the result, one for the fleet when a channel lists no team. dir
// is the out folder: teamPages names the pages once, for whichever asks
// first, so every caller passes the folder they are written in.
func (r *Run) chatScopes(res *analysis.Result, dir string, reports []string) []chatScope {
	var out []chatScope
	for _, t := range r.Config.Teams {
		chans := digestRoute(r.Config, t.Name)
		if len(chans) == 0 {
			continue
		}
		p := r.teamPages(res, dir, reports)[t.Name]
		if p == nil {
			fmt.Fprintf(r.said(), "chat: team %s has no cost and nothing to report in %s; no digest\n", t.Name, r.Window.Label)
			continue
		}
		// The team's own page, as the fleet digest links the report.
		out = append(out, chatScope{scope: t.Name, result: p.result, view: p.view, channels: chans, reportURL: r.link(filepath.Base(p.page))})
	}
	if chans := digestRoute(r.Config, ""); len(chans) > 0 {
		s := chatScope{result: res, view: report.NewAudience(res, "", nil), channels: chans}
		for _, p := range reports {
			if filepath.Ext(p) == ".html" {
				s.reportURL = r.link(filepath.Base(p))
			}
		}
		out = append(out, s)
	}
	return out
}

// digest builds a scope's message: the team's name as the result spells it.
func (s chatScope) digest() (report.DigestMessage, error) {
	team := ""
	if s.scope != "" {
		team = s.result.ByTeam[0].Team
	}
	return report.Digest(s.result, report.DigestOptions{Team: team, ReportURL: s.reportURL, View: s.view})
}

func chatWhat(scope, channel string) string {
	return "digest of " + scopeName(scope) + " to " + channel
}

// queueDigests builds this period's digests and queues them in the ledger
// for the channels that do not have them yet.
func (r *Run) queueDigests(ctx context.Context, res *analysis.Result, dir string, reports []string, fail func(string, ...any)) {
	result, period := r.result(), r.Window.Label
	for _, s := range r.chatScopes(res, dir, reports) {
		msg, err := s.digest()
		if err != nil {
			fail("chat: %s: %v", scopeName(s.scope), err)
			continue
		}
		pending, err := r.Store.QueueDigest(ctx, r.RunID, period, s.scope, s.channels, r.Options.Resend,
			store.DigestMessage{Title: msg.Title, Body: msg.Text, Currency: msg.Currency})
		if err != nil {
			fail("chat: %s: %v", scopeName(s.scope), err)
			continue
		}
		result.DigestsAlreadySent += len(s.channels) - len(pending)
	}
	if n := result.DigestsAlreadySent; n > 0 {
		fmt.Fprintf(r.said(), "chat: %d channels already have the %s digest; not sending again (--resend sends it again)\n", n, period)
	}
}

// webhook is the sender of a channel, its URL and secret read from the
// environment or files now; they join the secrets redacted from every
// output.
func (r *Run) webhook(ctx context.Context, ch config.Channel) (*publish.Webhook, error) {
	getenv := r.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	url, err := ch.URL(ctx, getenv, capped.ReadRegular)
	if err != nil {
		return nil, err
	}
	secret, err := ch.Secret(ctx, getenv, capped.ReadRegular)
	if err != nil {
		return nil, err
	}
	r.Transports.Secrets = append(r.Transports.Secrets, url, secret)
	w := &publish.Webhook{Kind: ch.Type, URL: url, Secret: secret, Now: r.Now, Timeout: ChatSendTimeout}
	if len(r.Backoff) > 0 {
		w.Backoff = r.Backoff[0]
	}
	return w, nil
}

// sendDigests sends every digest some channel still needs, of any period,
// and returns the stage's status. A channel whose send ran out of time is
// not tried again this run (its other digests are marked failed, for the
// next run to send); a digest whose channel left watch.channels, or no
// longer takes its scope, is abandoned.
func (r *Run) sendDigests(ctx context.Context, fail func(string, ...any)) string {
	pending, err := r.Store.PendingDigests(ctx)
	if err != nil {
		fail("chat: %v", err)
		return store.StageFailed
	}
	// The sends share the stage's deadline; the ledger is written with the
	// run's context, as the email stage does, so a digest sent just before
	// the deadline is still recorded sent (not posted again next run), and
	// one not tried after it is recorded failed.
	sctx, cancel := context.WithTimeout(ctx, ChatStageTimeout)
	defer cancel()
	chans := chatChannels(r.Config)
	senders := map[string]*publish.Webhook{}
	broken := map[string]string{} // channel → why it is not tried (again) this run
	result := r.result()
	status := store.StageOK
	failed := func(d store.Digest, text string) {
		what := chatWhat(d.Scope, d.Channel) + " (" + d.Period + ")"
		if err := r.Store.MarkDigest(ctx, r.RunID, d.Period, d.Scope, d.Channel, store.DigestFailed, r.redact(text)); err != nil {
			fail("chat: %s: %v", what, err)
		}
		result.DigestsFailed = append(result.DigestsFailed, what)
		fail("chat: %s failed: %s", what, text)
		status = store.StageFailed
	}
	for _, d := range pending {
		ch, ok := chans[d.Channel]
		if !ok || !slices.Contains(digestRoute(r.Config, d.Scope), d.Channel) {
			why := "its channel is no longer in watch.channels, or no longer takes " + scopeName(d.Scope) + "'s messages"
			if err := r.Store.MarkDigest(ctx, r.RunID, d.Period, d.Scope, d.Channel, store.DigestAbandoned, why); err != nil {
				fail("chat: %s (%s): %v", chatWhat(d.Scope, d.Channel), d.Period, err)
				status = store.StageFailed
			}
			fmt.Fprintf(r.said(), "chat: %s (%s) not sent: %s\n", chatWhat(d.Scope, d.Channel), d.Period, why)
			continue
		}
		if why, ok := broken[d.Channel]; ok {
			failed(d, "not tried: "+why)
			continue
		}
		w, ok := senders[d.Channel]
		if !ok {
			var err error
			if w, err = r.webhook(sctx, ch); err != nil {
				broken[d.Channel] = "watch.channels: " + d.Channel + ": " + err.Error()
				failed(d, broken[d.Channel])
				continue
			}
			senders[d.Channel] = w
		}
		if sctx.Err() != nil {
			failed(d, "not tried: the chat stage ran out of time")
			continue
		}
		err := w.Send(sctx, publish.Alert{Event: publish.EventDigest, Title: d.Title, Text: d.Body, Team: d.Scope,
			Currency: d.Currency})
		if err != nil {
			if errors.Is(err, publish.ErrTimedOut) || errors.Is(err, context.DeadlineExceeded) {
				broken[d.Channel] = d.Channel + " ran out of time on an earlier digest"
			}
			failed(d, r.redact(err.Error()))
			continue
		}
		if err := r.Store.MarkDigest(ctx, r.RunID, d.Period, d.Scope, d.Channel, store.DigestSent, ""); err != nil {
			fail("chat: %s: sent, but not recorded: %v", chatWhat(d.Scope, d.Channel), err)
			status = store.StageFailed
		}
		result.DigestsSent = append(result.DigestsSent, chatWhat(d.Scope, d.Channel)+" ("+d.Period+")")
		fmt.Fprintf(r.said(), "chat: sent the %s digest of %s to %s\n", d.Period, scopeName(d.Scope), d.Channel)
	}
	return status
}

// dryRunChat says which digests Deliver would send, touching no channel
// and no ledger row.
func (r *Run) dryRunChat(ctx context.Context, res *analysis.Result, dir string, reports []string,
	would func(list *[]string, format string, args ...any)) error {
	result, out, period := r.result(), r.out(), r.Window.Label
	for _, s := range r.chatScopes(res, dir, reports) {
		msg, err := s.digest()
		if err != nil {
			return err
		}
		st, err := r.Store.DigestStatus(ctx, period, s.scope)
		if err != nil {
			return err
		}
		for _, ch := range s.channels {
			if st[ch] == store.DigestSent && !r.Options.Resend {
				result.DigestsAlreadySent++
				fmt.Fprintf(out, "dry run: %s already has the %s digest of %s (--resend sends it again)\n", ch, period, scopeName(s.scope))
				continue
			}
			would(&result.WouldChat, "send the %s digest of %s to %s: %s (%d lines)", period, scopeName(s.scope), ch,
				strconv.Quote(sanitize.Control(msg.Title)), strings.Count(msg.Text, "\n")+1)
		}
	}
	pending, err := r.Store.PendingDigests(ctx)
	if err != nil {
		return err
	}
	for _, d := range pending {
		if d.Period != period {
			would(&result.WouldChat, "send the %s digest of %s to %s (left over from an earlier run)", d.Period,
				scopeName(d.Scope), d.Channel)
		}
	}
	return nil
}
