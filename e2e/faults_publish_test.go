package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/proxytest"
	"github.com/finops-oss/finops/internal/store"
)

// Publishing faults in the middle of a transfer, against the real servers of
// publish_test.go: versitygw killed while it is receiving an object, and an
// SMTP connection closed in the middle of a message's DATA.

// TestFaultPublishMidTransfer shares one demo fixture and one pair of servers
// between its two faults.
func TestFaultPublishMidTransfer(t *testing.T) {
	w := newPubWorld(t)
	t.Run("S3KilledMidUpload", func(t *testing.T) { testS3KilledMidUpload(t, w) })
	t.Run("SMTPClosesMidData", func(t *testing.T) { testSMTPClosesMidData(t, w) })
}

// putCutter forwards TCP connections to the S3 server. The first time it
// sees a PUT of one key it lets the request's headers and the first `after`
// bytes of its body through, then reports it on hit and holds the rest
// until release, when it closes both sides: the server has part of the
// object when the test kills it. Every other byte passes untouched.
type putCutter struct {
	*proxytest.Proxy
	marker  []byte // "PUT /bucket/key"
	after   int
	hit     chan struct{}
	release chan struct{}
	mu      sync.Mutex
	fired   bool
}

func newPutCutter(t *testing.T, target, bucket, key string, after int) *putCutter {
	t.Helper()
	p := &putCutter{marker: []byte("PUT /" + bucket + "/" + key), after: after,
		hit: make(chan struct{}), release: make(chan struct{})}
	p.Proxy = proxytest.Start(t, target, p.serve)
	return p
}

func (p *putCutter) serve(_ int, c net.Conn, dial func() (net.Conn, error)) {
	u, err := dial()
	if err != nil {
		return
	}
	var seen []byte // this connection's request bytes, while the cut is to come
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			p.mu.Lock()
			armed := !p.fired
			p.mu.Unlock()
			if armed {
				from := len(seen)
				seen = append(seen, chunk...)
				if cut := p.cutAt(seen); cut >= 0 && cut <= len(seen) {
					p.mu.Lock()
					mine := !p.fired
					p.fired = true
					p.mu.Unlock()
					if mine {
						u.Write(seen[from:cut])
						close(p.hit)
						<-p.release
						return
					}
				}
			}
			if _, werr := u.Write(chunk); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// cutAt is the offset in b after the target PUT's headers and `after` bytes
// of its body, or -1 while b holds no such request.
func (p *putCutter) cutAt(b []byte) int {
	i := bytes.Index(b, p.marker)
	if i < 0 {
		return -1
	}
	j := bytes.Index(b[i:], []byte("\r\n\r\n"))
	if j < 0 {
		return -1
	}
	return i + j + 4 + p.after
}

// testS3KilledMidUpload: versitygw is killed (SIGKILL) while it receives the
// 1 MB HTML report, after the four team workbooks (uploaded first: the
// ledger goes by name) are in. The run still emails, exits 4 naming the
// file that failed and saying the next run retries; the bucket holds the
// four workbooks and nothing under the report's key, not even part of it;
// the ledger keeps the report, the summary and the workbook pending. The
// next run, with the server back, uploads those and the snapshot, each
// object byte for byte the local file, and emails nobody again.
func testS3KilledMidUpload(t *testing.T, w *pubWorld) {
	e := w.env(t, 0, "")
	target := "weekly/2026-W48/finops-2026-W48.html"
	cutter := newPutCutter(t, strings.TrimPrefix(w.s3.URL, "http://"), e.bucket, target, 256<<10)
	cfg := mustRead(t, e.cfg)
	cfg = bytes.Replace(cfg, []byte("endpoint: "+w.s3.URL), []byte("endpoint: "+cutter.URL()), 1)
	// Retries against a dead server end at this deadline; the uploads before
	// the kill take milliseconds.
	cfg = bytes.Replace(cfg, []byte("    timeout: 5s\n"), []byte("    timeout: 3s\n"), 1)
	os.WriteFile(e.cfg, cfg, 0o644)

	killed := make(chan struct{})
	go func() {
		defer close(killed)
		select {
		case <-cutter.hit:
			w.s3.Stop() // SIGKILL, with 256 KiB of the report sent
			close(cutter.release)
		case <-time.After(60 * time.Second):
		}
	}()
	code, stdout, stderr := e.run(t, "run", "--week", "2026-W48")
	<-killed
	w.s3.Start()
	if code != cli.ExitPublish {
		t.Fatalf("run with S3 killed mid-upload: exit %d, want %d\n%s\n%s", code, cli.ExitPublish, stdout, stderr)
	}
	if !strings.Contains(stdout, "upload of finops-2026-W48.html failed") || !strings.Contains(stderr, "the next run retries") {
		t.Errorf("the run does not say what failed and what to do:\n%s\n%s", stdout, stderr)
	}
	var teamKeys []string // the team workbooks and pages, uploaded before the report
	for _, k := range week48Keys(true) {
		if strings.HasPrefix(k, "weekly/2026-W48/finops-2026-W48-") {
			teamKeys = append(teamKeys, k)
		}
	}
	if keys := e.keys(t); !slices.Equal(keys, teamKeys) {
		t.Errorf("bucket after the kill holds %v, want exactly the team workbooks and pages %v", keys, teamKeys)
	}
	if _, err := os.Stat(filepath.Join(w.s3.Dir, e.bucket, filepath.FromSlash(target))); !os.IsNotExist(err) {
		t.Errorf("the server's folder has a file under the cut key: %v", err)
	}
	wantOneEach(t, w.mp)
	checkKilledUploadLedger(t, e)

	code, stdout, stderr = e.run(t, "run", "--week", "2026-W48")
	if code != 0 {
		t.Fatalf("next run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if keys := e.keys(t); !slices.Equal(keys, week48Keys(true)) {
		t.Errorf("bucket keys %v, want %v", keys, week48Keys(true))
	}
	for _, k := range week48Keys(true) {
		obj := w.s3.Get(t, e.bucket, k)
		if obj.Metadata["sha256"] != sha(obj.Body) {
			t.Errorf("%s: sha256 metadata %q, body %s", k, obj.Metadata["sha256"], sha(obj.Body))
		}
		if strings.HasSuffix(k, ".db.gz") {
			continue
		}
		if local := mustRead(t, filepath.Join(e.out, filepath.Base(k))); !bytes.Equal(local, obj.Body) {
			t.Errorf("%s: %d bytes in the bucket differ from the %d of the local file", k, len(obj.Body), len(local))
		}
	}
	wantOneEach(t, w.mp)
	st := e.store(t)
	pending, _ := st.PendingArtifacts(context.Background())
	if len(pending) != 0 {
		t.Errorf("still pending: %+v", pending)
	}
	runs, _ := st.Runs(context.Background(), "2026-W48")
	if len(runs) != 2 || runs[0].Status != store.RunPublishFailed || runs[1].Status != store.RunOK {
		t.Errorf("runs = %+v", runs)
	}
}

// checkKilledUploadLedger: after the kill, the ledger holds the team
// workbooks and pages uploaded, the report, the summary and the workbook
// pending, and the snapshot not uploaded.
func checkKilledUploadLedger(t *testing.T, e *pubEnv) {
	t.Helper()
	arts, err := e.store(t).Artifacts(context.Background(), "2026-W48")
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, a := range arts {
		status[a.Name] = a.Status
	}
	for name, uploaded := range map[string]bool{"finops-2026-W48-cv.xlsx": true, "finops-2026-W48-nlp.xlsx": true,
		"finops-2026-W48-platform.xlsx": true, "finops-2026-W48-search.xlsx": true, "finops-2026-W48-cv.html": true,
		"finops-2026-W48-nlp.html": true, "finops-2026-W48-platform.html": true, "finops-2026-W48-search.html": true,
		"finops-2026-W48.html": false, "finops-2026-W48.json": false, "finops-2026-W48.xlsx": false} {
		if (status[name] == store.ArtifactUploaded) != uploaded || status[name] == "" {
			t.Errorf("ledger: %s is %q, want uploaded %v", name, status[name], uploaded)
		}
	}
	if _, ok := status["finops-2026-W48.db.gz"]; ok && status["finops-2026-W48.db.gz"] == store.ArtifactUploaded {
		t.Error("the snapshot counts as uploaded after a failed upload stage")
	}
}

// dataCutter is an SMTP relay in front of mailpit that forwards every line
// both ways, except that in a message to victim it closes both connections
// once `after` bytes of the DATA have passed: mailpit sees the message cut
// off, the client sees the connection drop mid-DATA. What each cut message
// had sent is kept.
type dataCutter struct {
	*proxytest.Proxy
	victim string
	after  int
	mu     sync.Mutex
	cuts   [][]byte
}

func newDataCutter(t *testing.T, target, victim string, after int) *dataCutter {
	t.Helper()
	p := &dataCutter{victim: strings.ToLower(victim), after: after}
	p.Proxy = proxytest.Start(t, target, p.serve)
	return p
}

func (p *dataCutter) Cuts() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.cuts)
}

func (p *dataCutter) serve(_ int, c net.Conn, dial func() (net.Conn, error)) {
	u, err := dial()
	if err != nil {
		return
	}
	r := bufio.NewReader(c)
	var victim, inData bool
	var data []byte
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			cmd := strings.ToUpper(strings.TrimSpace(string(line)))
			switch {
			case inData:
				if victim && len(data)+len(line) > p.after {
					p.mu.Lock()
					p.cuts = append(p.cuts, data)
					p.mu.Unlock()
					return // closes both ends in the middle of the message
				}
				data = append(data, line...)
				if cmd == "." {
					inData, victim, data = false, false, nil
				}
			case strings.HasPrefix(cmd, "RCPT TO:") && strings.Contains(strings.ToLower(cmd), p.victim):
				victim = true
			case cmd == "DATA":
				inData = true // the client sends the message only after mailpit's 354
			case cmd == "RSET" || strings.HasPrefix(cmd, "MAIL FROM:"):
				victim = false
			}
			if _, werr := u.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

var messageIDHeader = regexp.MustCompile(`(?im)^Message-Id:\s*<([^>\r\n]+)>`)

// testSMTPClosesMidData: the connection carrying the nlp lead's email is
// closed after 4 KiB of its DATA, on every try. The other four emails are
// delivered; nlp's counts as not sent (its ledger entry failed, not sent);
// the run exits 4 naming the email and saying the next run retries. The next
// run, straight to mailpit, sends nlp's email once, with the Message-ID of
// the cut attempts, and nobody else's again.
func testSMTPClosesMidData(t *testing.T, w *pubWorld) {
	const victim = "nlp-lead@example.com"
	cutter := newDataCutter(t, fmt.Sprintf("127.0.0.1:%d", w.mp.SMTPPort), victim, 4<<10)
	e := w.env(t, cutter.Port(), "")
	// The retries of a dropped connection are cut too; they need not wait.
	e.backoff = []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}

	code, stdout, stderr := e.run(t, "run", "--week", "2026-W48", "--no-upload")
	if code != cli.ExitPublish {
		t.Fatalf("run with the connection closed mid-DATA: exit %d, want %d\n%s\n%s", code, cli.ExitPublish, stdout, stderr)
	}
	if !strings.Contains(stdout, "email to team nlp 2026-W48 ("+victim+") failed: smtp data:") ||
		!strings.Contains(stderr, "the next run retries") {
		t.Errorf("the run does not say what failed and what to do:\n%s\n%s", stdout, stderr)
	}
	cuts := cutter.Cuts()
	if len(cuts) == 0 {
		t.Fatal("no message was cut")
	}
	var cutID string
	for _, c := range cuts {
		m := messageIDHeader.FindSubmatch(c)
		if m == nil {
			t.Fatalf("the cut message's first 4 KiB have no Message-Id:\n%s", c)
		}
		if cutID != "" && string(m[1]) != cutID {
			t.Errorf("the retries carry Message-Ids %s and %s", cutID, m[1])
		}
		cutID = string(m[1])
	}
	got := mailTo(t, w.mp)
	for _, r := range demoRecipients {
		if want := map[bool]int{true: 0, false: 1}[r == victim]; got[r] != want {
			t.Errorf("after the cut run %s has %d emails, want %d (mailbox %v)", r, got[r], want, got)
		}
	}
	sts, _ := e.store(t).EmailStatuses(context.Background(), "2026-W48")
	for _, s := range sts {
		if (s.Status == store.EmailSent) != (s.Recipient != victim) {
			t.Errorf("ledger after the cut run: %+v", s)
		}
	}

	// The next run goes straight to mailpit.
	cfg := bytes.Replace(mustRead(t, e.cfg), []byte(fmt.Sprintf("port: %d\n", cutter.Port())), []byte(fmt.Sprintf("port: %d\n", w.mp.SMTPPort)), 1)
	os.WriteFile(e.cfg, cfg, 0o644)
	if code, stdout, stderr = e.run(t, "run", "--week", "2026-W48", "--no-upload"); code != 0 {
		t.Fatalf("next run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantOneEach(t, w.mp)
	for _, m := range w.mp.Messages(t) {
		if len(m.To) == 1 && m.To[0].Address == victim && m.MessageID != cutID {
			t.Errorf("the resent email has Message-ID %q, the cut one had %q", m.MessageID, cutID)
		}
	}
	sts, _ = e.store(t).EmailStatuses(context.Background(), "2026-W48")
	for _, s := range sts {
		if s.Status != store.EmailSent {
			t.Errorf("ledger after the next run: %+v", s)
		}
	}
}
