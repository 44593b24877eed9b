package publish

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestSMTPClosedMidData: a server that accepts the envelope and DATA, reads
// part of the message and closes the connection (a fault mailpit cannot be
// made to produce; e2e's TestFaultPublishMidTransfer cuts a real
// mailpit connection the same way). Send must fail, as a temporary error of
// the data step, so that the caller keeps the email pending and retries it.
func TestSMTPClosedMidData(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const readBeforeClose = 1024
	got := make(chan int, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- -1
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(c)
		io.WriteString(c, "220 fake ESMTP\r\n")
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				got <- -1
				return
			}
			switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
			case strings.HasPrefix(cmd, "EHLO"):
				io.WriteString(c, "250-fake\r\n250 8BITMIME\r\n")
			case cmd == "DATA":
				io.WriteString(c, "354 go ahead\r\n")
				n, _ := io.ReadFull(r, make([]byte, readBeforeClose))
				got <- n
				return // closes the connection in the middle of the message
			default:
				io.WriteString(c, "250 ok\r\n")
			}
		}
	}()
	msg := testMail(t, "a@example.com")
	msg = append(msg, strings.Repeat("x", 64<<10)...) // a message well past what the server reads
	tr, err := NewTransport(SMTPConfig{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, TLS: TLSNone, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Send(t.Context(), "finops@example.com", []string{"a@example.com"}, msg)
	var se *SMTPError
	if !errors.As(err, &se) || se.Op != "data" || !se.Temporary || res != nil {
		t.Errorf("closed mid-DATA: result %+v, err %v; want a temporary smtp data error", res, err)
	}
	if n := <-got; n != readBeforeClose {
		t.Errorf("the server read %d bytes of the message before closing, want %d", n, readBeforeClose)
	}
}
