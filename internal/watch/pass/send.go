package pass

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/store"
)

// Sender is one of watch.channels: it delivers one message or says why not.
type Sender interface {
	Send(ctx context.Context, a Alert) error
}

// Alert is one message as the channels take it, with an id that stays
// the same when it is sent again after a failure (email's Message-ID).
type Alert struct {
	publish.Alert
	MessageID string
}

// channelsFor names the channels that take a team's messages.
func channelsFor(c *config.Config, team string) []string {
	var out []string
	for i, ch := range c.Watch.Channels {
		if len(ch.Teams) > 0 && !ch.Lists(team) {
			continue
		}
		if ch.Type == "email" && len(leadsOf(c, team)) == 0 {
			continue // nobody to write to: publish.smtp.admins and the team's leads are empty
		}
		out = append(out, ch.Name(i))
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// teamNamed is the teams entry of a team (names are unique, case aside:
// config validation), nil when none.
func teamNamed(c *config.Config, team string) *config.Team {
	for k := range c.Teams {
		if strings.EqualFold(c.Teams[k].Name, team) {
			return &c.Teams[k]
		}
	}
	return nil
}

// leadsOf is who gets a team's email: its leads, else publish.smtp.admins.
func leadsOf(c *config.Config, team string) []string {
	if t := teamNamed(c, team); t != nil && len(t.Leads) > 0 {
		return t.Leads
	}
	return c.Publish.SMTP.Admins
}

// quiet reports whether a team's quiet hours hold its messages at now.
func quiet(c *config.Config, team string, now time.Time) bool {
	loc, err := c.Location()
	if err != nil {
		return false
	}
	t := teamNamed(c, team)
	if t == nil || t.QuietHours == "" {
		return false
	}
	q, err := config.ParseQuietHours(t.QuietHours)
	return err == nil && q.Contains(now, loc)
}

// inZone is t in loc; the zero time stays zero ("not applicable").
func inZone(t time.Time, loc *time.Location) time.Time {
	if t.IsZero() {
		return t
	}
	return t.In(loc)
}

// delivery is how one message fared in a pass's sending, recorded after
// it (recordDeliveries): sent at a time, or failed with the error text.
type delivery struct {
	id     int64
	sentAt time.Time // zero: failed
	err    string    // redacted, for the ledger
}

// sendAlerts sends the pending messages whose team is not in its quiet
// hours (held ones wait for a later pass) and says how each fared. It
// touches no database: the caller has released the run lock (Run).
//
// The whole sending has watch.pass_timeout, and one send at most half of
// it (30 s by default, publish's own limit): a channel whose send runs
// out of time (no answer, or retried until its deadline) is not tried
// again this pass, so one hung webhook costs one send, not one per
// message. What is not tried stays pending for the next pass, as a
// message a channel refused does (exit 4).
func sendAlerts(ctx context.Context, o Options, msgs []store.WatchMessage) ([]delivery, error) {
	c := o.Config
	budget := c.Watch.Settings().PassTimeout
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	perSend := min(30*time.Second, budget/2)
	senders := map[string]Sender{}
	timedOut := map[string]int{} // channel → messages left untried after it ran out of time
	var out []delivery
	var errs []error
	held, late := 0, 0
	// The facts line's "since" and the JSON schema's since are in the
	// report's zone (docs/WATCH.md), as the text's times are (watch.Params.Zone).
	zone, err := c.Location()
	if err != nil {
		zone = time.UTC
	}
	for _, msg := range msgs {
		now := o.Now().UTC()
		if quiet(c, msg.Team, now) {
			held++
			continue
		}
		if ctx.Err() != nil {
			late++ // the pass's sending deadline has passed
			continue
		}
		if n, ok := timedOut[msg.Channel]; ok {
			timedOut[msg.Channel] = n + 1
			continue
		}
		s, ok := senders[msg.Channel]
		if !ok {
			var err error
			s, err = sender(ctx, o, msg.Channel)
			if err != nil {
				errs = append(errs, fmt.Errorf("watch: channel %s: %w", msg.Channel, err))
				s = nil
			}
			senders[msg.Channel] = s
		}
		if s == nil {
			continue
		}
		a := Alert{Alert: publish.Alert{Event: msg.Event, Title: msg.Title, Text: msg.Body, Resource: msg.Resource,
			Team: msg.Team, Since: inZone(msg.Since, zone), Currency: msg.Currency}, MessageID: "watch-" + strconv.FormatInt(msg.ID, 10)}
		if msg.BurntKnown {
			a.Burnt = strconv.FormatFloat(amount.RoundMinor(msg.Currency, msg.Burnt), 'f', -1, 64)
		}
		sctx, scancel := context.WithTimeout(ctx, perSend)
		err := s.Send(sctx, a)
		ranOut := sctx.Err() != nil
		scancel()
		if err != nil {
			text := deliver.Redact(err.Error())
			errs = append(errs, fmt.Errorf("watch: channel %s: %s", msg.Channel, text))
			out = append(out, delivery{id: msg.ID, err: text})
			if ranOut || errors.Is(err, publish.ErrTimedOut) || errors.Is(err, context.DeadlineExceeded) {
				timedOut[msg.Channel] = 0
			}
			continue
		}
		out = append(out, delivery{id: msg.ID, sentAt: o.Now().UTC()})
	}
	for ch, n := range timedOut {
		if n > 0 {
			errs = append(errs, fmt.Errorf("watch: channel %s ran out of time: its %d other message(s) were not tried this pass and stay pending", ch, n))
		}
	}
	if late > 0 {
		errs = append(errs, fmt.Errorf("watch: %d message(s) not tried: the pass's sending took watch.pass_timeout (%s); they stay pending for the next pass", late, budget))
	}
	if held > 0 && !o.Quiet {
		fmt.Fprintf(o.Out, "watch: %d message(s) held for quiet hours\n", held)
	}
	return out, errors.Join(errs...)
}

// recordDeliveries writes how the pass's sends fared. The pass released
// the run lock before sending, so it takes it again here. A weekly run
// that took it meanwhile does not stop the record: a run never replaces
// the database file, and SQLite orders these few row updates with the
// run's writes. A restore does (it renames its snapshot over the file):
// then, or when the file is no longer the one read before sending, the
// ids may name other messages, so nothing is recorded, and the next pass
// sends the messages again (a duplicate rather than a wrong mark).
func recordDeliveries(ctx context.Context, o Options, before os.FileInfo, ds []delivery) error {
	st := o.Store
	if len(ds) == 0 {
		return nil
	}
	lock, err := store.AcquireRunLock(st.Path(), LockJob, o.Now())
	var le *store.LockedError
	switch {
	case err == nil:
		defer lock.Release()
	case errors.As(err, &le) && strings.HasPrefix(le.Job(), "run "):
	default:
		return fmt.Errorf("watch: what this pass sent is not recorded, so it is sent again next pass: %w", err)
	}
	if now, err := os.Stat(st.Path()); err != nil || !os.SameFile(before, now) {
		return fmt.Errorf("watch: the database was replaced while this pass was sending (a restore): what it sent is not recorded, so it is sent again next pass")
	}
	var errs []error
	for _, d := range ds {
		if d.sentAt.IsZero() {
			errs = append(errs, st.MessageFailed(ctx, d.id, d.err))
		} else {
			errs = append(errs, st.MessageSent(ctx, d.id, d.sentAt))
		}
	}
	return errors.Join(errs...)
}

// sender builds the sender of a channel named by config.Channel.Name.
func sender(ctx context.Context, o Options, name string) (Sender, error) {
	c := o.Config
	typ, idx, _ := strings.Cut(name, "#")
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= len(c.Watch.Channels) || c.Watch.Channels[i].Type != typ {
		return nil, fmt.Errorf("no such channel in watch.channels any more: its messages stay pending")
	}
	ch := c.Watch.Channels[i]
	if o.Channel != nil {
		if s := o.Channel(ch); s != nil {
			return s, nil
		}
	}
	if ch.Type == "email" {
		return newEmailSender(ctx, o)
	}
	url, err := ch.URL(ctx, o.Getenv, capped.ReadRegular)
	if err != nil {
		return nil, fmt.Errorf("watch.channels[%d]: %w", i, err)
	}
	secret, err := ch.Secret(ctx, o.Getenv, capped.ReadRegular)
	if err != nil {
		return nil, fmt.Errorf("watch.channels[%d]: %w", i, err)
	}
	return webhookSender{publish.Webhook{Kind: ch.Type, URL: url, Secret: secret, Now: o.Now}}, nil
}

// emailSender writes to the team's leads through publish.smtp.
type emailSender struct {
	c   *config.Config
	tr  *publish.Transport
	now func() time.Time
}

func newEmailSender(ctx context.Context, o Options) (Sender, error) {
	c := o.Config
	s := c.Publish.SMTP
	if s.Host == "" || s.From == "" {
		return nil, errors.New("an email channel needs publish.smtp.host and publish.smtp.from")
	}
	pass, err := s.Password(ctx, o.Getenv, capped.ReadRegular)
	if err != nil {
		return nil, err
	}
	sc, err := deliver.SMTPSettings(ctx, s, pass)
	if err != nil {
		return nil, err
	}
	tr, err := publish.NewTransport(*sc)
	if err != nil {
		return nil, err
	}
	return &emailSender{c: c, tr: tr, now: o.Now}, nil
}

func (e *emailSender) Send(ctx context.Context, a Alert) error {
	from := e.c.Publish.SMTP.From
	to := leadsOf(e.c, a.Team)
	msg, err := publish.BuildMessage(publish.Mail{From: from, To: to, Subject: "finops watch: " + a.Title,
		Text: a.Text, Date: e.now(), MessageID: publish.MessageID(a.MessageID, a.Resource, 1, from)})
	if err != nil {
		return err
	}
	res, err := e.tr.Send(ctx, from, to, msg)
	if err == nil && len(res.Accepted) == 0 {
		err = errors.New("the server accepted no recipient")
	}
	return err
}

// webhookSender is a chat or JSON webhook of publish.
type webhookSender struct{ w publish.Webhook }

func (s webhookSender) Send(ctx context.Context, a Alert) error { return s.w.Send(ctx, a.Alert) }
