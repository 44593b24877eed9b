package publish

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
	"time"
)

func TestValidateAddress(t *testing.T) {
	for _, ok := range []string{"nlp-lead@example.com", "a.b+c@sub.example.co", "x@localhost"} {
		if err := ValidateAddress(ok); err != nil {
			t.Errorf("ValidateAddress(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "nlp", "@example.com", "a@", "A <a@example.com>", "a@example.com\r\nBcc: x@evil.com",
		"a@example.com, b@example.com", `"a b"@example.com`, "a@exa mple.com", "ä@example.com", "a@ex_ample.com",
		"a@.example.com", "a@example..com", "a@example.com."} {
		if err := ValidateAddress(bad); err == nil {
			t.Errorf("ValidateAddress(%q): no error", bad)
		}
	}
}

func TestMessageIDStable(t *testing.T) {
	a := MessageID("2026-W47", "nlp", 1, "finops@example.com")
	if a != MessageID("2026-W47", "nlp", 1, "finops@example.com") {
		t.Error("MessageID is not deterministic")
	}
	for _, other := range []string{MessageID("2026-W47", "cv", 1, "finops@example.com"),
		MessageID("2026-W47", "nlp", 2, "finops@example.com"), MessageID("2026-W48", "nlp", 1, "finops@example.com")} {
		if other == a {
			t.Errorf("MessageID collision: %s", a)
		}
	}
	if !strings.HasPrefix(a, "<finops.2026-W47.") || !strings.HasSuffix(a, ".1@example.com>") {
		t.Errorf("MessageID = %s", a)
	}
	if id := MessageID("../x\r\n", "", 1, "bad address"); strings.ContainsAny(id, "\r\n /") {
		t.Errorf("MessageID = %q", id)
	}
}

// TestBuildMessage parses what BuildMessage writes: headers safe, a text and
// an HTML alternative, the attachment under an ASCII name.
func TestBuildMessage(t *testing.T) {
	wb := []byte("PK\x03\x04 not really a workbook")
	raw, err := BuildMessage(Mail{
		From:        "finops@example.com",
		To:          []string{"nlp-lead@example.com", "nlp-lead2@example.com"},
		Subject:     "[finops] nlp · 2026-W47 · ¥12,345\r\nBcc: victim@evil.com",
		Text:        "total ¥12,345",
		HTML:        "<p>total ¥12,345</p>",
		MessageID:   MessageID("2026-W47", "nlp", 1, "finops@example.com"),
		Date:        time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC),
		Attachments: []Attachment{{Name: "finops-2026-W47-NLP团队\".xlsx", Content: wb}},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkHeaderASCII(t, raw)
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	h := msg.Header
	if h.Get("Bcc") != "" {
		t.Errorf("subject injected a Bcc header: %q", h.Get("Bcc"))
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	if err != nil || subject != "[finops] nlp · 2026-W47 · ¥12,345 Bcc: victim@evil.com" {
		t.Errorf("Subject = %q, %v", subject, err)
	}
	if to, err := h.AddressList("To"); err != nil || len(to) != 2 || to[1].Address != "nlp-lead2@example.com" {
		t.Errorf("To = %v, %v", to, err)
	}
	if h.Get("Message-Id") != MessageID("2026-W47", "nlp", 1, "finops@example.com") {
		t.Errorf("Message-Id = %q", h.Get("Message-Id"))
	}
	if d, err := h.Date(); err != nil || !d.Equal(time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("Date = %v, %v", d, err)
	}
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("Content-Type = %q, %v", h.Get("Content-Type"), err)
	}
	var kinds []string
	var attached []byte
	var filename string
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ct, cp, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if ct == "multipart/alternative" {
			kinds = append(kinds, alternativeParts(t, p, cp["boundary"])...)
			continue
		}
		kinds = append(kinds, ct)
		filename = p.FileName()
		b, _ := io.ReadAll(p)
		attached = b
	}
	if strings.Join(kinds, ",") != "text/plain,text/html,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" {
		t.Errorf("parts = %v", kinds)
	}
	if filename != "finops-2026-W47-NLP___.xlsx" {
		t.Errorf("attachment name = %q", filename)
	}
	if !bytes.Equal(decodeBase64(t, attached), wb) {
		t.Error("attachment bytes differ")
	}
}

// checkHeaderASCII checks every header line of raw is ASCII: non-ASCII
// text must be encoded words.
func checkHeaderASCII(t *testing.T, raw []byte) {
	t.Helper()
	for _, line := range strings.Split(string(raw), "\r\n") {
		if line == "" {
			break // end of the header
		}
		for _, r := range line {
			if r >= 0x7f {
				t.Fatalf("non-ASCII byte in header line %q", line)
			}
		}
	}
}

// alternativeParts reads a multipart/alternative part: each alternative
// must hold the total; it returns their content types in order.
func alternativeParts(t *testing.T, p io.Reader, boundary string) []string {
	t.Helper()
	var kinds []string
	ar := multipart.NewReader(p, boundary)
	for {
		ap, err := ar.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		at, _, _ := mime.ParseMediaType(ap.Header.Get("Content-Type"))
		body, _ := io.ReadAll(ap) // multipart decodes quoted-printable
		if !strings.Contains(string(body), "¥12,345") {
			t.Errorf("%s part = %q", at, body)
		}
		kinds = append(kinds, at)
	}
	return kinds
}

func decodeBase64(t *testing.T, b []byte) []byte {
	t.Helper()
	// multipart does not undo base64; mail clients do.
	out, err := io.ReadAll(base64Reader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBuildMessageRejectsBadAddresses(t *testing.T) {
	for _, m := range []Mail{
		{From: "finops@example.com", To: []string{"a@example.com\r\nBcc: x@evil.com"}},
		{From: "finops <finops@example.com>", To: []string{"a@example.com"}},
		{From: "finops@example.com"},
		{From: "finops@example.com", To: []string{"a@example.com"}, MessageID: "<x\r\n@y>"},
	} {
		if _, err := BuildMessage(m); err == nil {
			t.Errorf("BuildMessage(%+v): no error", m)
		}
	}
}

func TestSafeHeader(t *testing.T) {
	if got := SafeHeader("a\r\nb\tc\u2028d  e"); got != "a b c d e" {
		t.Errorf("SafeHeader = %q", got)
	}
	if got := SafeHeader(strings.Repeat("é", 300)); len([]rune(got)) != 200 {
		t.Errorf("SafeHeader kept %d runes", len([]rune(got)))
	}
}

func base64Reader(b []byte) io.Reader {
	return base64.NewDecoder(base64.StdEncoding, bytes.NewReader(bytes.ReplaceAll(b, []byte("\r\n"), nil)))
}
