package publishtest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Fault is what a fault server does to a response's body. The real servers
// the other tests use (versitygw, Azurite, fake-gcs-server) cannot stall or
// cut a download on demand; these faults are served by a handler of the
// test's own on 127.0.0.1, speaking just enough of each store's protocol.
type Fault int

const (
	// Whole sends the body whole.
	Whole Fault = iota
	// Stall sends the headers and the body's first At bytes, then nothing,
	// keeping the connection open until the client gives up.
	Stall
	// Cut sends the headers (the whole length) and the first At bytes,
	// then closes the connection.
	Cut
	// Trickle sends the body in eight pieces Gap apart: slow, never silent
	// for as long as an idle limit above Gap.
	Trickle
	// Silent accepts the request and answers nothing, not even headers,
	// until the client gives up.
	Silent
)

// Body is one response body and its fault. At and the body are in object
// bytes: a request for a range from At on (a client resuming after a cut)
// gets no byte more before the same fault, so the fault holds however
// the client retries.
type Body struct {
	Data  []byte
	Fault Fault
	At    int
	Gap   time.Duration // Trickle's pause between pieces
}

// Serve writes b to w for r: 200, or 206 for a "bytes=N-" range (Range or
// x-ms-range), with the headers the caller set on w. stop ends a Stall
// (the test's end); so does the client going away.
func (b Body) Serve(w http.ResponseWriter, r *http.Request, stop <-chan struct{}) {
	start := 0
	rg := r.Header.Get("Range")
	if rg == "" {
		rg = r.Header.Get("x-ms-range")
	}
	if s, ok := strings.CutPrefix(rg, "bytes="); ok {
		from, _, _ := strings.Cut(s, "-")
		if n, err := strconv.Atoi(from); err == nil && n >= 0 && n <= len(b.Data) {
			start = n
		}
	}
	h := w.Header()
	h.Set("Content-Length", strconv.Itoa(len(b.Data)-start))
	status := http.StatusOK
	if rg != "" {
		status = http.StatusPartialContent
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(b.Data)-1, len(b.Data)))
	}
	upTo := max(start, min(b.At, len(b.Data)))
	switch b.Fault {
	case Silent:
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	case Stall:
		w.WriteHeader(status)
		w.Write(b.Data[start:upTo])
		w.(http.Flusher).Flush()
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	case Cut:
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return // not over HTTP/1 (httptest's server is): nothing sent is a cut too
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
		h.Write(buf)
		buf.WriteString("\r\n")
		buf.Write(b.Data[start:upTo])
		buf.Flush()
	case Trickle:
		w.WriteHeader(status)
		rest := b.Data[start:]
		piece := max(1, (len(rest)+7)/8)
		for i := 0; i < len(rest); i += piece {
			if i > 0 {
				time.Sleep(b.Gap)
			}
			w.Write(rest[i:min(i+piece, len(rest))])
			w.(http.Flusher).Flush()
		}
	default:
		w.WriteHeader(status)
		w.Write(b.Data[start:])
	}
}

// FaultServer starts an httptest server with handler; stop, closed as the
// test ends (before the server is), releases its stalled responses.
func FaultServer(t testing.TB, handler func(w http.ResponseWriter, r *http.Request, stop <-chan struct{})) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler(w, r, stop) }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs first
	return srv
}

// FaultyS3 starts an S3 endpoint (path style, any credentials) whose
// bucket holds one object, key, whose body is served with b's fault;
// listing (ListObjectsV2) is served whole, or with listing's fault when it
// is not Whole. The URL is its endpoint.
func FaultyS3(t testing.TB, bucket, key string, b Body, listing Fault) string {
	t.Helper()
	modified := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	srv := FaultServer(t, func(w http.ResponseWriter, r *http.Request, stop <-chan struct{}) {
		bk, k, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		switch {
		case bk != bucket:
			s3Error(w, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
		case k == "" && r.Method == http.MethodGet:
			list := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`+
				`<Name>%s</Name><Prefix></Prefix><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>`+
				`<Contents><Key>%s</Key><LastModified>%s</LastModified><ETag>&quot;0&quot;</ETag><Size>%d</Size><StorageClass>STANDARD</StorageClass></Contents>`+
				`<KeyCount>1</KeyCount></ListBucketResult>`, esc(bucket), esc(key), modified.Format("2006-01-02T15:04:05.000Z"), len(b.Data))
			w.Header().Set("Content-Type", "application/xml")
			Body{Data: []byte(list), Fault: listing, At: len(list) / 2}.Serve(w, r, stop)
		case k == key && r.Method == http.MethodGet:
			w.Header().Set("Last-Modified", modified.Format(http.TimeFormat))
			w.Header().Set("ETag", `"0"`)
			b.Serve(w, r, stop)
		default:
			s3Error(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		}
	})
	return srv.URL
}

// ReadFault is what a download through a fault server should end with:
// the object whole at Path under the folder (ErrHas nil), or an error
// holding each of ErrHas, none of Secrets, and no torn copy left at Path.
type ReadFault struct {
	Idle    time.Duration // the client's idle limit
	Path    string        // the object's copy, relative to the folder
	Want    []byte        // the object
	ErrHas  []string      // nil: the object is read whole
	Secrets []string      // what no message may show
}

// CheckRead runs fetch into a fresh folder and checks its end against f.
// It fails, rather than hangs, when fetch is still going a generous margin
// (a loaded machine's scheduling, never the limit itself) after f.Idle.
// fetch says how many files it wrote.
func (f ReadFault) CheckRead(t *testing.T, fetch func(dir string) (int, error)) {
	t.Helper()
	const slack = 5 * time.Second
	dir := t.TempDir()
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		n, err := fetch(dir)
		done <- result{n, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(f.Idle + slack):
		t.Fatalf("still fetching %v after the start; the idle limit is %v", f.Idle+slack, f.Idle)
	}
	copyPath := filepath.Join(dir, filepath.FromSlash(f.Path))
	if f.ErrHas == nil {
		got, err := os.ReadFile(copyPath)
		if res.err != nil || res.n != 1 || err != nil || !bytes.Equal(got, f.Want) {
			t.Fatalf("%d files, err %v; copy %q (%v); want %q whole", res.n, res.err, got, err, f.Want)
		}
		return
	}
	if res.err == nil {
		t.Fatalf("no error after %v; want one", time.Since(start))
	}
	t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), res.err)
	for _, w := range f.ErrHas {
		if !strings.Contains(res.err.Error(), w) {
			t.Errorf("error %q lacks %q", res.err, w)
		}
	}
	for _, s := range f.Secrets {
		if strings.Contains(res.err.Error(), s) {
			t.Errorf("error shows a secret (%q): %q", s, res.err)
		}
	}
	if _, err := os.Stat(copyPath); err == nil {
		t.Errorf("a torn copy was left in the folder")
	}
}
