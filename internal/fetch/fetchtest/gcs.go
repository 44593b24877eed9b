package fetchtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/proctest"
)

// FakeGCS is a running fake-gcs-server.
type FakeGCS struct {
	URL string // http://127.0.0.1:PORT, its STORAGE_EMULATOR_HOST
}

// StartFakeGCS starts fake-gcs-server in memory on a free port; it stops
// when the test ends.
func StartFakeGCS(t testing.TB) *FakeGCS {
	t.Helper()
	bin := proctest.Binary(t, "fake-gcs-server", FakeGCSInstall)
	if bin == "" {
		return nil
	}
	port := proctest.FreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	p := proctest.Start(t, bin, "-scheme", "http", "-host", "127.0.0.1", "-port", strconv.Itoa(port), "-backend", "memory",
		"-data", t.TempDir(), "-public-host", addr, "-external-url", "http://"+addr, "-log-level", "warn")
	g := &FakeGCS{URL: "http://" + addr}
	p.WaitHTTP(t, "fake-gcs-server", g.URL+"/storage/v1/b", 30*time.Second)
	return g
}

// CreateBucket creates a bucket through the JSON API.
func (g *FakeGCS) CreateBucket(t testing.TB, name string) {
	t.Helper()
	g.post(t, g.URL+"/storage/v1/b", "application/json", []byte(fmt.Sprintf(`{"name":%q}`, name)))
}

// Put uploads an object through the JSON API's media upload: any name,
// as the service stores it.
func (g *FakeGCS) Put(t testing.TB, bucket, name string, body []byte) {
	t.Helper()
	g.post(t, g.URL+"/upload/storage/v1/b/"+url.PathEscape(bucket)+"/o?uploadType=media&name="+url.QueryEscape(name),
		"application/octet-stream", body)
}

func (g *FakeGCS) post(t testing.TB, u, contentType string, body []byte) {
	t.Helper()
	resp, err := http.Post(u, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %s\n%s", u, resp.Status, b)
	}
}
