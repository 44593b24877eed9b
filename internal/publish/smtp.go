package publish

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SMTP TLS modes (config.TLSStartTLS …).
const (
	TLSStartTLS = "starttls"
	TLSImplicit = "implicit"
	TLSNone     = "none"
)

// SMTPConfig says how to reach the mail server. Password is a secret read
// from the environment or a file by the caller.
type SMTPConfig struct {
	Host     string
	Port     int    // default 587 (starttls), 465 (implicit), 25 (none)
	TLS      string // starttls (default), implicit, none (loopback hosts only)
	Username string // "" sends without AUTH
	Password string
	// Timeout bounds the connection and each command (default 30s).
	Timeout time.Duration
	// RootCAs verifies the server's certificate; nil uses the system roots.
	RootCAs *x509.CertPool
	// HelloName is sent in EHLO (default "localhost").
	HelloName string
}

// String never shows the password.
func (c SMTPConfig) String() string {
	return fmt.Sprintf("smtp://%s (tls %s, user %q)", c.Addr(), c.tlsMode(), c.Username)
}

// Addr is host:port, the port's default following the TLS mode.
func (c SMTPConfig) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.port())) }

// TLSMode is the TLS mode, starttls when none is set.
func (c SMTPConfig) TLSMode() string { return c.tlsMode() }

func (c SMTPConfig) tlsMode() string {
	if c.TLS == "" {
		return TLSStartTLS
	}
	return c.TLS
}

func (c SMTPConfig) port() int {
	switch {
	case c.Port != 0:
		return c.Port
	case c.tlsMode() == TLSImplicit:
		return 465
	case c.tlsMode() == TLSNone:
		return 25
	}
	return 587
}

func (c SMTPConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 30 * time.Second
}

// Transport sends messages over SMTP: one connection per message, with a
// deadline on the connection and on every command, TLS required unless the
// server is on this host and plaintext was asked for, and AUTH PLAIN or
// LOGIN only over TLS.
type Transport struct {
	cfg SMTPConfig
}

// NewTransport checks cfg and returns a transport. It does not connect.
func NewTransport(cfg SMTPConfig) (*Transport, error) {
	if cfg.Host == "" {
		return nil, errors.New("publish: smtp: no host configured")
	}
	switch cfg.tlsMode() {
	case TLSStartTLS, TLSImplicit:
	case TLSNone:
		if !isLoopback(cfg.Host) {
			return nil, fmt.Errorf("publish: smtp: plaintext (tls: none) is allowed only for a server on this host, not %s", cfg.Host)
		}
	default:
		return nil, fmt.Errorf("publish: smtp: unknown TLS mode %q", cfg.TLS)
	}
	return &Transport{cfg: cfg}, nil
}

// SMTPError is a failed send. Temporary is true for 4xx replies and network
// failures (worth retrying), false for 5xx replies (the server said no).
type SMTPError struct {
	Op        string // connect, tls, auth, mail, rcpt, data
	Code      int    // the server's reply code; 0 for network failures
	Temporary bool
	Err       error
}

func (e *SMTPError) Error() string { return "smtp " + e.Op + ": " + e.Err.Error() }
func (e *SMTPError) Unwrap() error { return e.Err }

// SendResult says which recipients the server accepted.
type SendResult struct {
	Accepted []string
	Rejected map[string]error // by the server at RCPT TO
}

// Send delivers msg from from to every recipient in one SMTP transaction. A
// recipient the server refuses is listed in Rejected and the others still
// get the message; an error means no one got it.
func (t *Transport) Send(ctx context.Context, from string, to []string, msg []byte) (*SendResult, error) {
	if len(to) == 0 {
		return &SendResult{}, nil
	}
	s, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	cl, deadline := s.cl, s.deadline
	deadline()
	if err := cl.Mail(from); err != nil {
		return nil, classify("mail", err)
	}
	res := &SendResult{Rejected: map[string]error{}}
	var temporary error
	for _, r := range to {
		deadline()
		if err := cl.Rcpt(r); err != nil {
			e := classify("rcpt", err)
			var se *SMTPError
			if errors.As(e, &se) && se.Code == 0 {
				return nil, e // the connection broke
			}
			if se != nil && se.Temporary {
				temporary = e
			}
			res.Rejected[r] = e
			continue
		}
		res.Accepted = append(res.Accepted, r)
	}
	if len(res.Accepted) == 0 {
		if temporary != nil {
			return nil, temporary
		}
		first := firstErr(res.Rejected)
		if len(to) == 1 {
			return nil, first
		}
		var se *SMTPError
		errors.As(first, &se)
		return nil, &SMTPError{Op: "rcpt", Code: se.Code, Err: fmt.Errorf("the server refused all %d recipients, e.g. %w", len(to), se.Err)}
	}
	deadline()
	w, err := cl.Data()
	if err != nil {
		return nil, classify("data", err)
	}
	if _, err := w.Write(msg); err != nil {
		return nil, classify("data", err)
	}
	deadline()
	// Close sends the final "." and reads the server's verdict.
	if err := w.Close(); err != nil {
		return nil, classify("data", err)
	}
	deadline()
	cl.Quit() // the message is accepted; a failed QUIT changes nothing
	return res, nil
}

// Check connects, says hello, secures the connection and authenticates as
// Send does, then quits without sending: finops doctor's SMTP check.
func (t *Transport) Check(ctx context.Context) error {
	s, err := t.open(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	s.deadline()
	if err := s.cl.Quit(); err != nil {
		return classify("quit", err)
	}
	return nil
}

// session is an SMTP connection ready for MAIL FROM.
type session struct {
	cl       *smtp.Client
	conn     net.Conn
	stop     func() bool
	deadline func()
}

func (s *session) close() {
	s.stop()
	s.cl.Close()
	s.conn.Close()
}

// open connects, says hello, secures the connection (STARTTLS or implicit
// TLS, as configured) and authenticates when a user is configured.
func (t *Transport) open(ctx context.Context) (_ *session, err error) {
	c := t.cfg
	addr := c.Addr()
	d := net.Dialer{Timeout: c.timeout()}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &SMTPError{Op: "connect", Temporary: true, Err: err}
	}
	// The context closes the connection, which ends any blocked read or write.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer func() {
		if err != nil {
			stop()
			conn.Close()
		}
	}()
	deadline := func() { conn.SetDeadline(time.Now().Add(c.timeout())) }
	tlsCfg := &tls.Config{ServerName: c.Host, RootCAs: c.RootCAs, MinVersion: tls.VersionTLS12}

	deadline()
	var nc net.Conn = conn
	if c.tlsMode() == TLSImplicit {
		tc := tls.Client(conn, tlsCfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, classify("tls", err)
		}
		nc = tc
	}
	cl, err := smtp.NewClient(nc, c.Host)
	if err != nil {
		return nil, classify("connect", err)
	}
	deadline()
	hello := c.HelloName
	if hello == "" {
		hello = "localhost"
	}
	if err := cl.Hello(hello); err != nil {
		return nil, classify("ehlo", err)
	}
	secure := c.tlsMode() == TLSImplicit
	if c.tlsMode() == TLSStartTLS {
		if ok, _ := cl.Extension("STARTTLS"); !ok {
			return nil, &SMTPError{Op: "tls", Err: fmt.Errorf("%s does not offer STARTTLS; refusing to send in plaintext (set tls: implicit for port 465)", addr)}
		}
		deadline()
		if err := cl.StartTLS(tlsCfg); err != nil {
			return nil, classify("starttls", err)
		}
		secure = true
	}
	if c.Username != "" {
		deadline()
		ok, mechs := cl.Extension("AUTH")
		if !ok {
			return nil, &SMTPError{Op: "auth", Err: fmt.Errorf("%s does not offer AUTH, but a user is configured", addr)}
		}
		a, err := pickAuth(mechs, c.Username, c.Password, secure || c.tlsMode() == TLSNone)
		if err != nil {
			return nil, &SMTPError{Op: "auth", Err: err}
		}
		if err := cl.Auth(a); err != nil {
			return nil, classify("auth", err)
		}
	}
	return &session{cl: cl, conn: conn, stop: stop, deadline: deadline}, nil
}

func firstErr(m map[string]error) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return nil
	}
	return m[keys[0]]
}

// classify wraps err as an SMTPError: server replies keep their code (4xx
// temporary, 5xx permanent); anything else is a network failure (temporary).
func classify(op string, err error) error {
	var tp *textproto.Error
	if errors.As(err, &tp) {
		return &SMTPError{Op: op, Code: tp.Code, Temporary: tp.Code >= 400 && tp.Code < 500, Err: err}
	}
	// A certificate the server cannot prove is not going to improve in a minute.
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	permanent := errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn)
	return &SMTPError{Op: op, Temporary: !permanent, Err: err}
}

// Temporary reports whether a send error is worth retrying.
func Temporary(err error) bool {
	var se *SMTPError
	if errors.As(err, &se) {
		return se.Temporary
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// pickAuth chooses PLAIN, else LOGIN, among the server's mechanisms. Neither
// sends the password unless the connection is encrypted (or plaintext to this
// host was configured).
func pickAuth(mechs, user, pass string, allowed bool) (smtp.Auth, error) {
	if !allowed {
		return nil, errors.New("refusing to send the password over an unencrypted connection")
	}
	offered := strings.Fields(strings.ToUpper(mechs))
	switch {
	case slices.Contains(offered, "PLAIN"):
		return &plainAuth{user: user, pass: pass}, nil
	case slices.Contains(offered, "LOGIN"):
		return &loginAuth{user: user, pass: pass}, nil
	}
	return nil, fmt.Errorf("the server offers AUTH %s; finops speaks PLAIN and LOGIN", mechs)
}

// plainAuth is AUTH PLAIN (RFC 4616). net/smtp's PlainAuth would refuse a
// plaintext connection to 127.0.0.1 under another name; the transport has
// already decided whether sending the password is allowed.
type plainAuth struct{ user, pass string }

func (a *plainAuth) Start(*smtp.ServerInfo) (string, []byte, error) {
	return "PLAIN", []byte("\x00" + a.user + "\x00" + a.pass), nil
}

func (a *plainAuth) Next(_ []byte, more bool) ([]byte, error) {
	if more {
		return nil, errors.New("unexpected server challenge during AUTH PLAIN")
	}
	return nil, nil
}

// loginAuth is the AUTH LOGIN exchange: the server prompts "Username:" then
// "Password:" (base64, which net/smtp decodes).
type loginAuth struct {
	user, pass string
	step       int
}

func (a *loginAuth) Start(*smtp.ServerInfo) (string, []byte, error) {
	a.step = 0
	return "LOGIN", nil, nil
}

func (a *loginAuth) Next(prompt []byte, more bool) ([]byte, error) {
	if !more {
		return nil, nil
	}
	a.step++
	p := strings.ToLower(strings.TrimSpace(string(prompt)))
	switch {
	case strings.HasPrefix(p, "user"), p == "" && a.step == 1:
		return []byte(a.user), nil
	case strings.HasPrefix(p, "pass"), p == "" && a.step == 2:
		return []byte(a.pass), nil
	}
	return nil, fmt.Errorf("unexpected AUTH LOGIN prompt %q", prompt)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
