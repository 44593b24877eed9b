package doctor

import (
	"context"
	"errors"
	"fmt"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/publish"
)

func (d *run) smtp(ctx context.Context, s config.SMTP, sendTo string) {
	if s.Host == "" {
		if sendTo != "" {
			d.line(Fail, "smtp", "--send-test: publish.smtp.host is not set")
			return
		}
		d.line(Skip, "smtp", "publish.smtp.host is not set: no email is sent")
		return
	}
	pass, err := s.Password(ctx, d.o.Getenv, capped.ReadRegular)
	if err != nil {
		d.line(Fail, "smtp", err.Error())
		return
	}
	sc, err := deliver.SMTPSettings(ctx, s, pass)
	if err != nil {
		d.line(Fail, "smtp", err.Error(), pass)
		return
	}
	tr, err := publish.NewTransport(*sc)
	if err != nil {
		d.line(Fail, "smtp", err.Error(), pass)
		return
	}
	// The address and TLS mode as the transport resolves their defaults.
	addr := sc.Addr()
	steps := "connected"
	switch sc.TLSMode() {
	case publish.TLSStartTLS:
		steps += ", STARTTLS"
	case publish.TLSImplicit:
		steps += ", TLS"
	}
	if s.User != "" {
		steps += ", AUTH as " + s.User
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := tr.Check(ctx); err != nil {
		d.line(Fail, "smtp", fmt.Sprintf("%s: %v%s", addr, err, smtpHint(err)), pass)
		return
	}
	d.line(OK, "smtp", addr+": "+steps, pass)
	if sendTo == "" {
		return
	}
	now := d.o.Now()
	msg, err := publish.BuildMessage(publish.Mail{From: s.From, To: []string{sendTo}, Date: now,
		Subject:   "finops doctor: test email",
		Text:      "This is a test email from `finops doctor --send-test`: the weekly reports will come this way.\n",
		MessageID: publish.MessageID("doctor-"+now.UTC().Format("20060102T150405"), sendTo, 1, s.From)})
	if err != nil {
		d.line(Fail, "smtp send", fmt.Sprintf("--send-test %s: %v", sendTo, err))
		return
	}
	res, err := tr.Send(ctx, s.From, []string{sendTo}, msg)
	if err == nil && len(res.Accepted) == 0 {
		err = errors.New("the server accepted no recipient")
	}
	if err != nil {
		d.line(Fail, "smtp send", fmt.Sprintf("to %s: %v%s", sendTo, err, smtpHint(err)), pass)
		return
	}
	d.line(OK, "smtp send", fmt.Sprintf("a test email to %s, from %s", sendTo, s.From))
}

// smtpHint says which setting an SMTP failure points at.
func smtpHint(err error) string {
	var se *publish.SMTPError
	if !errors.As(err, &se) {
		return ""
	}
	switch se.Op {
	case "connect":
		return ": check publish.smtp.host and port, and that this host may reach it"
	case "tls", "starttls":
		return ": check publish.smtp.tls (starttls on 587, implicit on 465) and ca_file"
	case "auth":
		return ": check publish.smtp.user and the password in its password_env or password_file"
	case "mail", "rcpt":
		return ": check publish.smtp.from and the recipient"
	}
	return ""
}
