// Package publishtest starts the real servers the publishing tests talk to —
// versitygw (an S3 gateway over a local folder) and mailpit (SMTP with an
// HTTP API) — on 127.0.0.1 with free ports, waits until they answer, and
// stops them when the test ends.
//
// The binaries are found on PATH or in $GOBIN / $(go env GOPATH)/bin, where
// .ci/run installs them. Without them a test is skipped with the install
// command, except in CI (CI=true or FINOPS_TEST_REQUIRE=1), where it fails.
package publishtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/finops-oss/finops/internal/proctest"
)

// Install commands, pinned as in .ci/run.
const (
	VersityInstall = "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"
	MailpitInstall = "go install github.com/axllent/mailpit@v1.33.1"
)

// S3Server is a running versitygw serving the folder Dir.
type S3Server struct {
	URL       string // http://127.0.0.1:PORT
	AccessKey string
	SecretKey string
	Region    string
	Dir       string // the buckets' parent folder
	bin, addr string
	args      []string
	proc      *proctest.Process
	t         testing.TB
}

// StartS3 starts versitygw with the given root credentials over a fresh
// folder; it stops when the test ends.
func StartS3(t testing.TB, accessKey, secretKey string) *S3Server {
	t.Helper()
	bin := proctest.Binary(t, "versitygw", VersityInstall)
	s := &S3Server{AccessKey: accessKey, SecretKey: secretKey, Region: "us-east-1", Dir: t.TempDir(), bin: bin, t: t}
	s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(proctest.FreePort(t)))
	s.URL = "http://" + s.addr
	backend := []string{"posix"}
	if !xattrSupported(s.Dir) {
		// Object metadata lives in extended attributes; where the file
		// system has none, versitygw keeps it in a sidecar folder.
		backend = append(backend, "--sidecar", t.TempDir())
	}
	s.args = append([]string{"--access", accessKey, "--secret", secretKey, "--region", s.Region, "--port", s.addr, "--quiet"},
		append(backend, s.Dir)...)
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start (re)starts the server on the same address and folder.
func (s *S3Server) Start() {
	s.t.Helper()
	s.proc = proctest.Start(s.t, s.bin, s.args...)
	s.proc.WaitHTTP(s.t, "versitygw", s.URL, 15*time.Second)
}

// Stop stops the server (the folder stays).
func (s *S3Server) Stop() { s.proc.Stop() }

// Client is a plain SDK client for checking what the code under test did.
func (s *S3Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:                     s.Region,
		BaseEndpoint:               aws.String(s.URL),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// CreateBucket creates a bucket.
func (s *S3Server) CreateBucket(t testing.TB, name string) {
	t.Helper()
	if _, err := s.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
}

// Object is a stored object as the checks see it.
type Object struct {
	Key         string
	Body        []byte
	ContentType string
	Metadata    map[string]string
}

// Keys lists the keys in a bucket under prefix, sorted.
func (s *S3Server) Keys(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	out, err := s.Client().ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	if err != nil {
		t.Fatalf("list s3://%s/%s: %v", bucket, prefix, err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	return keys
}

// Get downloads an object.
func (s *S3Server) Get(t testing.TB, bucket, key string) Object {
	t.Helper()
	out, err := s.Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("get s3://%s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Object{Key: key, Body: b, ContentType: aws.ToString(out.ContentType), Metadata: out.Metadata}
}

// Put uploads bytes (tests seed a bucket with it).
func (s *S3Server) Put(t testing.TB, bucket, key string, body []byte) {
	t.Helper()
	if _, err := s.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
		Body: bytes.NewReader(body)}); err != nil {
		t.Fatalf("put s3://%s/%s: %v", bucket, key, err)
	}
}

// Mailpit is a running mailpit.
type Mailpit struct {
	Host     string // 127.0.0.1
	SMTPPort int
	API      string // http://127.0.0.1:PORT
	proc     *proctest.Process
}

// StartMailpit starts mailpit with plaintext SMTP, any credentials accepted,
// chaos (fault injection) enabled, plus extra flags (TLS certificates, an
// auth file …); it stops when the test ends.
//
// FreePort's ports were free a moment ago, not reserved: a server another
// test starts meanwhile can take one, and then mailpit exits at once while
// the other server answers on its ports. The test would talk to the wrong
// server, so a mailpit that exits with its address in use is started again
// on other ports, and one is only returned still running after it answered.
func StartMailpit(t testing.TB, extra ...string) *Mailpit {
	t.Helper()
	bin := proctest.Binary(t, "mailpit", MailpitInstall)
	for attempt := 1; ; attempt++ {
		m, clash := startMailpitOnce(t, bin, extra)
		if !clash {
			return m
		}
		if attempt == 5 {
			t.Fatalf("mailpit found its ports taken 5 times:\n%s", m.proc.Output())
		}
	}
}

// startMailpitOnce starts mailpit on fresh ports and waits until both its
// listeners answer and it is still running; clash reports that it exited
// because a port was taken.
func startMailpitOnce(t testing.TB, bin string, extra []string) (m *Mailpit, clash bool) {
	t.Helper()
	m = &Mailpit{Host: "127.0.0.1", SMTPPort: proctest.FreePort(t)}
	httpPort := proctest.FreePort(t)
	m.API = fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	args := []string{
		"--smtp", fmt.Sprintf("127.0.0.1:%d", m.SMTPPort),
		"--listen", fmt.Sprintf("127.0.0.1:%d", httpPort),
		"--database", filepath.Join(t.TempDir(), "mailpit.db"),
		"--smtp-disable-rdns", "--disable-version-check", "--enable-chaos", "--quiet",
	}
	if !hasFlag(extra, "--smtp-auth-file") {
		args = append(args, "--smtp-auth-accept-any")
	}
	if !hasFlag(extra, "--smtp-require-tls") && !hasFlag(extra, "--smtp-require-starttls") {
		args = append(args, "--smtp-auth-allow-insecure")
	}
	m.proc = proctest.Start(t, bin, append(args, extra...)...)
	exited := func() (bool, bool) {
		select {
		case <-m.proc.Done():
			if strings.Contains(m.proc.Output(), "address already in use") {
				return true, true
			}
			t.Fatalf("mailpit exited while starting:\n%s", m.proc.Output())
		default:
		}
		return false, false
	}
	deadline := time.Now().Add(25 * time.Second)
	for {
		if gone, clash := exited(); gone {
			return m, clash
		}
		if mailpitAnswers(m) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mailpit did not answer at %s and 127.0.0.1:%d:\n%s", m.API, m.SMTPPort, m.proc.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A clash ends mailpit within milliseconds; one still running a moment
	// after its ports answered is the one answering on them.
	time.Sleep(200 * time.Millisecond)
	if gone, clash := exited(); gone {
		return m, clash
	}
	return m, false
}

// mailpitAnswers says whether mailpit's HTTP API and SMTP port both answer.
func mailpitAnswers(m *Mailpit) bool {
	resp, err := http.Get(m.API + "/api/v1/info")
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", m.SMTPPort), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// Address is a mailpit address.
type Address struct{ Name, Address string }

// Summary is one message in the list.
type Summary struct {
	ID          string
	MessageID   string
	From        Address
	To          []Address
	Subject     string
	Attachments int
}

// Message is one message in full.
type Message struct {
	ID          string
	MessageID   string
	From        Address
	To          []Address
	Subject     string
	Text, HTML  string
	Attachments []Part
}

// Part is an attachment.
type Part struct {
	PartID, FileName, ContentType string
	Size                          int
}

func (m *Mailpit) get(t testing.TB, path string, v any) []byte {
	t.Helper()
	resp, err := http.Get(m.API + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("mailpit GET %s: %s: %s", path, resp.Status, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("mailpit GET %s: %v", path, err)
		}
	}
	return b
}

func (m *Mailpit) send(t testing.TB, method, path, body string) {
	t.Helper()
	req, err := http.NewRequest(method, m.API+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("mailpit %s %s: %s: %s", method, path, resp.Status, b)
	}
}

// Messages lists every stored message, newest first.
func (m *Mailpit) Messages(t testing.TB) []Summary {
	t.Helper()
	var out struct{ Messages []Summary }
	m.get(t, "/api/v1/messages?limit=1000", &out)
	return out.Messages
}

// Message reads one message.
func (m *Mailpit) Message(t testing.TB, id string) Message {
	t.Helper()
	var out Message
	m.get(t, "/api/v1/message/"+id, &out)
	return out
}

// Raw is the message as received.
func (m *Mailpit) Raw(t testing.TB, id string) []byte {
	t.Helper()
	return m.get(t, "/api/v1/message/"+id+"/raw", nil)
}

// Attachment downloads one part.
func (m *Mailpit) Attachment(t testing.TB, id, partID string) []byte {
	t.Helper()
	return m.get(t, "/api/v1/message/"+id+"/part/"+partID, nil)
}

// DeleteAll empties the mailbox.
func (m *Mailpit) DeleteAll(t testing.TB) {
	t.Helper()
	m.send(t, http.MethodDelete, "/api/v1/messages", "{}")
}

// RefuseRecipients makes the SMTP server answer every RCPT TO with code
// (e.g. 550, or 451 for a temporary refusal); 0 stops refusing. It uses
// mailpit's chaos triggers.
func (m *Mailpit) RefuseRecipients(t testing.TB, code int) {
	t.Helper()
	body := `{}`
	if code != 0 {
		body = fmt.Sprintf(`{"Recipient":{"ErrorCode":%d,"Probability":100}}`, code)
	}
	m.send(t, http.MethodPut, "/api/v1/chaos", body)
}
