package publish

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/objkey"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/jordan-wright/email"
)

// Mail is one email: an HTML body with a plain-text alternative and
// attachments.
type Mail struct {
	From        string   // bare address
	To          []string // bare addresses
	Subject     string   // may be UTF-8: it is RFC 2047-encoded
	Text, HTML  string
	MessageID   string // "<…@…>"; see MessageID
	Date        time.Time
	Attachments []Attachment
}

// Attachment is a file attached to a Mail.
type Attachment struct {
	Name        string // reduced to a safe ASCII file name
	ContentType string
	Content     []byte
}

// ValidateAddress accepts a bare ASCII address, local@domain, with no display
// name, comment, quoting, whitespace or control character: an address that
// came from a config file and goes into a header and an SMTP command.
func ValidateAddress(a string) error {
	if a == "" {
		return fmt.Errorf("empty email address")
	}
	for _, r := range a {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),:;<>[\]`, r) {
			return fmt.Errorf("email address %q: only plain ASCII addresses (local@domain) are accepted", a)
		}
	}
	p, err := mail.ParseAddress(a)
	if err != nil || p.Name != "" || p.Address != a {
		return fmt.Errorf("email address %q is not valid", a)
	}
	at := strings.LastIndexByte(a, '@')
	if at <= 0 || at == len(a)-1 {
		return fmt.Errorf("email address %q is not valid", a)
	}
	domain := a[at+1:]
	if strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") || strings.Contains(domain, "..") {
		return fmt.Errorf("email address %q has an invalid domain", a)
	}
	for _, r := range domain {
		if !(r == '.' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return fmt.Errorf("email address %q has an invalid domain", a)
		}
	}
	return nil
}

// MessageID is the Message-ID of one period's email to one scope (a team, or
// "" for the admins), in one generation (1, then +1 per --resend). It depends
// on nothing else, so a message retried after a crash keeps its ID and mail
// systems can recognise a copy.
func MessageID(period, scope string, generation int, from string) string {
	domain := "finops.invalid"
	if at := strings.LastIndexByte(from, '@'); at >= 0 && ValidateAddress(from) == nil {
		domain = from[at+1:]
	}
	h := sha256.Sum256([]byte(scope))
	return fmt.Sprintf("<finops.%s.%s.%d@%s>", objkey.SafeName(period), hex.EncodeToString(h[:6]), generation, domain)
}

// SafeHeader makes text from the data safe for a header: control and
// invisible formatting characters (sanitize.UnsafeRune: CR and LF included,
// so no header can be injected; bidi controls that would disguise a
// subject) become spaces, runs of
// whitespace collapse, and it is cut to 200 characters. Non-ASCII text stays
// and is RFC 2047-encoded when the message is built.
func SafeHeader(s string) string {
	s = strings.Map(func(r rune) rune {
		if sanitize.UnsafeRune(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	return s
}

// BuildMessage renders m as a MIME message (multipart/mixed: an alternative
// of text and HTML, then the attachments) with jordan-wright/email.
// Addresses are validated; the subject is made safe and encoded; attachment
// names are reduced to ASCII.
func BuildMessage(m Mail) ([]byte, error) {
	if err := ValidateAddress(m.From); err != nil {
		return nil, fmt.Errorf("publish: from: %w", err)
	}
	if len(m.To) == 0 {
		return nil, fmt.Errorf("publish: an email needs a recipient")
	}
	for _, a := range m.To {
		if err := ValidateAddress(a); err != nil {
			return nil, fmt.Errorf("publish: to: %w", err)
		}
	}
	if m.MessageID != "" && (!strings.HasPrefix(m.MessageID, "<") || !strings.HasSuffix(m.MessageID, ">") ||
		strings.ContainsFunc(m.MessageID, func(r rune) bool { return r <= ' ' || r >= 0x7f })) {
		return nil, fmt.Errorf("publish: message id %q is not <id@domain>", m.MessageID)
	}
	e := email.NewEmail()
	e.From = (&mail.Address{Name: "finops", Address: m.From}).String()
	e.To = m.To
	e.Subject = SafeHeader(m.Subject)
	e.Text = []byte(m.Text)
	e.HTML = []byte(m.HTML)
	if m.MessageID != "" {
		e.Headers.Set("Message-Id", m.MessageID)
	}
	if !m.Date.IsZero() {
		e.Headers.Set("Date", m.Date.Format(time.RFC1123Z))
	}
	// RFC 3834: an automatic message; vacation responders should stay quiet.
	e.Headers.Set("Auto-Submitted", "auto-generated")
	for _, a := range m.Attachments {
		ct := a.ContentType
		if ct == "" {
			ct = objkey.ContentType(a.Name)
		}
		if _, err := e.Attach(bytes.NewReader(a.Content), objkey.SafeName(a.Name), ct); err != nil {
			return nil, fmt.Errorf("publish: attach %s: %w", objkey.SafeName(a.Name), err)
		}
	}
	b, err := e.Bytes()
	if err != nil {
		return nil, fmt.Errorf("publish: build email: %w", err)
	}
	return b, nil
}
