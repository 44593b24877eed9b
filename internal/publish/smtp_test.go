package publish

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/publish/publishtest"
)

// testCert writes a self-signed certificate for 127.0.0.1 and localhost and
// returns the cert and key files and a pool that trusts it.
func testCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "finops test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	os.WriteFile(certFile, certPEM, 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	pool = x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	return certFile, keyFile, pool
}

func testMail(t *testing.T, to ...string) []byte {
	t.Helper()
	b, err := BuildMessage(Mail{From: "finops@example.com", To: to, Subject: "[finops] test · ¥1", Text: "hello", HTML: "<p>hello</p>",
		MessageID: MessageID("2026-W47", "t", 1, "finops@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func send(t *testing.T, cfg SMTPConfig, to ...string) (*SendResult, error) {
	t.Helper()
	tr, err := NewTransport(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return tr.Send(ctx, "finops@example.com", to, testMail(t, to...))
}

func TestSMTPPlaintextLocalhost(t *testing.T) {
	mp := publishtest.StartMailpit(t)
	res, err := send(t, SMTPConfig{Host: mp.Host, Port: mp.SMTPPort, TLS: TLSNone, Username: "finops", Password: "pw"},
		"a@example.com", "b@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Accepted) != 2 {
		t.Errorf("accepted %v", res.Accepted)
	}
	msgs := mp.Messages(t)
	if len(msgs) != 1 || len(msgs[0].To) != 2 || msgs[0].Subject != "[finops] test · ¥1" ||
		msgs[0].MessageID != strings.Trim(MessageID("2026-W47", "t", 1, "finops@example.com"), "<>") {
		t.Errorf("mailbox: %+v", msgs)
	}
}

// TestSMTPStartTLS: the default mode upgrades the connection, verifying the
// server's certificate (here against a test root; by default the system's).
func TestSMTPStartTLS(t *testing.T) {
	cert, key, pool := testCert(t)
	mp := publishtest.StartMailpit(t, "--smtp-tls-cert", cert, "--smtp-tls-key", key, "--smtp-require-starttls")
	if _, err := send(t, SMTPConfig{Host: mp.Host, Port: mp.SMTPPort, Username: "finops", Password: "pw", RootCAs: pool},
		"a@example.com"); err != nil {
		t.Fatal(err)
	}
	if n := len(mp.Messages(t)); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
	// Without the test root the certificate is unknown: a permanent error.
	_, err := send(t, SMTPConfig{Host: mp.Host, Port: mp.SMTPPort, Username: "finops", Password: "pw"}, "a@example.com")
	if err == nil || Temporary(err) {
		t.Errorf("untrusted certificate: err %v (temporary %v)", err, Temporary(err))
	}
}

func TestSMTPImplicitTLS(t *testing.T) {
	cert, key, pool := testCert(t)
	mp := publishtest.StartMailpit(t, "--smtp-tls-cert", cert, "--smtp-tls-key", key, "--smtp-require-tls")
	if _, err := send(t, SMTPConfig{Host: mp.Host, Port: mp.SMTPPort, TLS: TLSImplicit, Username: "finops", Password: "pw",
		RootCAs: pool}, "a@example.com"); err != nil {
		t.Fatal(err)
	}
	if n := len(mp.Messages(t)); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}

// TestSMTPStartTLSRequired: a server without STARTTLS gets nothing, not
// even the password, unless plaintext was configured.
func TestSMTPStartTLSRequired(t *testing.T) {
	mp := publishtest.StartMailpit(t)
	_, err := send(t, SMTPConfig{Host: mp.Host, Port: mp.SMTPPort, Username: "finops", Password: "pw"}, "a@example.com")
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Errorf("err = %v, want a STARTTLS refusal", err)
	}
	if n := len(mp.Messages(t)); n != 0 {
		t.Errorf("%d messages sent in plaintext", n)
	}
}

func TestSMTPPlaintextOnlyForLocalhost(t *testing.T) {
	if _, err := NewTransport(SMTPConfig{Host: "smtp.example.com", TLS: TLSNone}); err == nil {
		t.Error("plaintext to a remote host accepted")
	}
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := NewTransport(SMTPConfig{Host: h, TLS: TLSNone}); err != nil {
			t.Errorf("plaintext to %s: %v", h, err)
		}
	}
	if _, err := NewTransport(SMTPConfig{Host: "x", TLS: "ssl"}); err == nil {
		t.Error("unknown TLS mode accepted")
	}
}

// TestSMTPAuth: mailpit checks the password; a wrong one is a permanent
// error that does not quote the password.
func TestSMTPAuth(t *testing.T) {
	auth := filepath.Join(t.TempDir(), "auth")
	os.WriteFile(auth, []byte("finops:right-Passw0rd-123\n"), 0o600)
	mp := publishtest.StartMailpit(t, "--smtp-auth-file", auth)
	cfg := SMTPConfig{Host: mp.Host, Port: mp.SMTPPort, TLS: TLSNone, Username: "finops", Password: "wrong-Passw0rd-456"}
	_, err := send(t, cfg, "a@example.com")
	var se *SMTPError
	if !errors.As(err, &se) || se.Op != "auth" || se.Temporary || strings.Contains(err.Error(), cfg.Password) {
		t.Errorf("wrong password: %v", err)
	}
	cfg.Password = "right-Passw0rd-123"
	if _, err := send(t, cfg, "a@example.com"); err != nil {
		t.Errorf("right password: %v", err)
	}
	if s := cfg.String(); strings.Contains(s, cfg.Password) {
		t.Errorf("String() shows the password: %s", s)
	}
}

// TestSMTPRefusesRecipients uses mailpit's fault injection: a permanent
// refusal of every recipient is an error, a temporary one is temporary.
func TestSMTPRefusesRecipients(t *testing.T) {
	mp := publishtest.StartMailpit(t)
	cfg := SMTPConfig{Host: mp.Host, Port: mp.SMTPPort, TLS: TLSNone}
	mp.RefuseRecipients(t, 550)
	_, err := send(t, cfg, "a@example.com")
	if err == nil || Temporary(err) {
		t.Errorf("550: err %v, temporary %v", err, Temporary(err))
	}
	mp.RefuseRecipients(t, 451)
	if _, err := send(t, cfg, "a@example.com"); err == nil || !Temporary(err) {
		t.Errorf("451: err %v, temporary %v", err, Temporary(err))
	}
	mp.RefuseRecipients(t, 0)
	if _, err := send(t, cfg, "a@example.com"); err != nil {
		t.Errorf("after the fault: %v", err)
	}
	if n := len(mp.Messages(t)); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}

// TestSMTPDeadline: a server that accepts the connection and then says
// nothing (a fault mailpit cannot be made to produce) costs one timeout.
func TestSMTPDeadline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, silent
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	start := time.Now()
	_, err = send(t, SMTPConfig{Host: "127.0.0.1", Port: port, TLS: TLSNone, Timeout: 300 * time.Millisecond}, "a@example.com")
	if err == nil || !Temporary(err) {
		t.Errorf("silent server: err %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v with a 300ms timeout", d)
	}
	// Nothing listening: a temporary connect error.
	l2, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l2.Addr().(*net.TCPAddr).Port
	l2.Close()
	_, err = send(t, SMTPConfig{Host: "127.0.0.1", Port: closed, TLS: TLSNone, Timeout: time.Second}, "a@example.com")
	var se *SMTPError
	if !errors.As(err, &se) || se.Op != "connect" || !se.Temporary {
		t.Errorf("closed port: %v", err)
	}
}

func TestLoginAuth(t *testing.T) {
	a := &loginAuth{user: "u", pass: "p"}
	if mech, ir, _ := a.Start(nil); mech != "LOGIN" || ir != nil {
		t.Errorf("Start = %s, %q", mech, ir)
	}
	if b, _ := a.Next([]byte("Username:"), true); string(b) != "u" {
		t.Errorf("username answer %q", b)
	}
	if b, _ := a.Next([]byte("Password:"), true); string(b) != "p" {
		t.Errorf("password answer %q", b)
	}
	if b, err := a.Next(nil, false); b != nil || err != nil {
		t.Errorf("final = %q, %v", b, err)
	}
	if _, err := pickAuth("CRAM-MD5", "u", "p", true); err == nil {
		t.Error("CRAM-MD5 only: no error")
	}
	if _, err := pickAuth("PLAIN LOGIN", "u", "p", false); err == nil {
		t.Error("AUTH over an unencrypted connection allowed")
	}
	if a, _ := pickAuth("LOGIN PLAIN", "u", "p", true); a == nil {
		t.Error("no mechanism picked")
	} else if _, ok := a.(*plainAuth); !ok {
		t.Errorf("picked %T, want PLAIN", a)
	}
}

// TestSMTPCheck: Check (finops doctor) goes through STARTTLS and AUTH with
// the right password and sends nothing; a wrong password fails at auth, an
// untrusted certificate at starttls.
func TestSMTPCheck(t *testing.T) {
	cert, key, pool := testCert(t)
	auth := filepath.Join(t.TempDir(), "auth")
	os.WriteFile(auth, []byte("finops:right-Passw0rd-123\n"), 0o600)
	mp := publishtest.StartMailpit(t, "--smtp-tls-cert", cert, "--smtp-tls-key", key, "--smtp-require-starttls",
		"--smtp-auth-file", auth)
	for _, tc := range []struct {
		name, pass string
		pool       *x509.CertPool
		op         string // "" for success
	}{
		{"right password", "right-Passw0rd-123", pool, ""},
		{"wrong password", "wrong-Passw0rd-456", pool, "auth"},
		{"untrusted certificate", "right-Passw0rd-123", nil, "starttls"},
	} {
		tr, err := NewTransport(SMTPConfig{Host: mp.Host, Port: mp.SMTPPort, Username: "finops", Password: tc.pass, RootCAs: tc.pool})
		if err != nil {
			t.Fatal(err)
		}
		err = tr.Check(context.Background())
		var se *SMTPError
		switch {
		case tc.op == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.op != "" && (!errors.As(err, &se) || se.Op != tc.op):
			t.Errorf("%s: err %v, want an SMTPError at %s", tc.name, err, tc.op)
		}
	}
	if n := len(mp.Messages(t)); n != 0 {
		t.Errorf("Check sent %d messages", n)
	}
}
