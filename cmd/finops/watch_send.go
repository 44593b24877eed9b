package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/deliver"
	"github.com/finops-oss/finops/publish"
	"github.com/finops-oss/finops/store"
)

// alertSender is one of watch.channels: it delivers one message or says why not.
type alertSender interface {
	Send(ctx context.Context, a watchAlert) error
}

// watchAlert is one message as the channels take it, with an id that stays
// the same when it is sent again after a failure (email's Message-ID).
type watchAlert struct {
	publish.Alert
	MessageID string
}

// channelsFor names the channels that take a team's messages.
func channelsFor(c *config.Config, team string) []string {
	var out []string
	for i, ch := range c.Watch.Channels {
		if len(ch.Teams) > 0 && !containsFold(ch.Teams, team) {
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

// deliver sends every pending message whose team is not in its quiet hours
// (held ones wait for a later pass) and marks each as it is accepted. A
// failure leaves the message pending for the next pass.
func (m *Main) deliver(ctx context.Context, st *store.Store, c *config.Config) error {
	msgs, err := st.PendingWatchMessages(ctx)
	if err != nil || len(msgs) == 0 {
		return err
	}
	senders := map[string]alertSender{}
	var errs []error
	held := 0
	for _, msg := range msgs {
		now := m.Now().UTC()
		if quiet(c, msg.Team, now) {
			held++
			continue
		}
		s, ok := senders[msg.Channel]
		if !ok {
			s, err = m.watchSender(c, msg.Channel)
			if err != nil {
				err = fmt.Errorf("watch: channel %s: %w", msg.Channel, err)
				errs = append(errs, err)
				s = nil
			}
			senders[msg.Channel] = s
		}
		if s == nil {
			continue
		}
		a := watchAlert{Alert: publish.Alert{Event: msg.Event, Title: msg.Title, Text: msg.Body, Resource: msg.Resource,
			Team: msg.Team, Since: msg.Since, Currency: msg.Currency}, MessageID: "watch-" + strconv.FormatInt(msg.ID, 10)}
		if msg.BurntKnown {
			a.Burnt = strconv.FormatFloat(amount.RoundMinor(msg.Currency, msg.Burnt), 'f', -1, 64)
		}
		if err := s.Send(ctx, a); err != nil {
			text := redact(err.Error())
			errs = append(errs, fmt.Errorf("watch: channel %s: %s", msg.Channel, text))
			if err := st.MessageFailed(ctx, msg.ID, text); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err := st.MessageSent(ctx, msg.ID, m.Now().UTC()); err != nil {
			errs = append(errs, err)
		}
	}
	if held > 0 && !m.quiet {
		fmt.Fprintf(m.Stdout, "watch: %d message(s) held for quiet hours\n", held)
	}
	return errors.Join(errs...)
}

// watchSender builds the sender of a channel named by config.Channel.Name.
func (m *Main) watchSender(c *config.Config, name string) (alertSender, error) {
	typ, idx, _ := strings.Cut(name, "#")
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= len(c.Watch.Channels) || c.Watch.Channels[i].Type != typ {
		return nil, fmt.Errorf("no such channel in watch.channels any more: its messages stay pending")
	}
	ch := c.Watch.Channels[i]
	if m.watchChannels != nil {
		if s := m.watchChannels(ch); s != nil {
			return s, nil
		}
	}
	if ch.Type == "email" {
		return m.emailSender(c)
	}
	url, err := ch.URL(m.Getenv)
	if err != nil {
		return nil, fmt.Errorf("watch.channels[%d]: %w", i, err)
	}
	secret, err := ch.Secret(m.Getenv)
	if err != nil {
		return nil, fmt.Errorf("watch.channels[%d]: %w", i, err)
	}
	return webhookSender{publish.Webhook{Kind: ch.Type, URL: url, Secret: secret, Now: m.Now}}, nil
}

// emailSender writes to the team's leads through publish.smtp.
type emailSender struct {
	c  *config.Config
	tr *publish.Transport
	m  *Main
}

func (m *Main) emailSender(c *config.Config) (alertSender, error) {
	s := c.Publish.SMTP
	if s.Host == "" || s.From == "" {
		return nil, errors.New("an email channel needs publish.smtp.host and publish.smtp.from")
	}
	pass, err := s.Password(m.Getenv)
	if err != nil {
		return nil, err
	}
	sc, err := deliver.SMTPSettings(s, pass)
	if err != nil {
		return nil, err
	}
	tr, err := publish.NewTransport(*sc)
	if err != nil {
		return nil, err
	}
	return &emailSender{c: c, tr: tr, m: m}, nil
}

func (e *emailSender) Send(ctx context.Context, a watchAlert) error {
	from := e.c.Publish.SMTP.From
	to := leadsOf(e.c, a.Team)
	msg, err := publish.BuildMessage(publish.Mail{From: from, To: to, Subject: "finops watch: " + a.Title,
		Text: a.Text, Date: e.m.Now(), MessageID: publish.MessageID(a.MessageID, a.Resource, 1, from)})
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

func (s webhookSender) Send(ctx context.Context, a watchAlert) error { return s.w.Send(ctx, a.Alert) }
