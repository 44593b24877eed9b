package promtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/proctest"
)

// VictoriaMetricsInstall is how a machine gets victoria-metrics (.ci/run).
const VictoriaMetricsInstall = "go install github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics@v1.151.0"

// VictoriaMetricsBinary returns the path of victoria-metrics, on PATH or in
// $(go env GOPATH)/bin, failing the test in CI and skipping it elsewhere
// when it is missing.
func VictoriaMetricsBinary(tb testing.TB) string {
	tb.Helper()
	return proctest.Binary(tb, "victoria-metrics", VictoriaMetricsInstall)
}

// StartVictoriaMetrics starts VictoriaMetrics' single-node server on a free
// 127.0.0.1 port with a fresh storage folder, imports exposition (see
// Exposition) through /api/v1/import/prometheus and returns once it answers
// queries over it. The server is stopped at cleanup.
func StartVictoriaMetrics(tb testing.TB, exposition []byte) *Server {
	tb.Helper()
	bin := VictoriaMetricsBinary(tb)
	data := filepath.Join(tb.TempDir(), "vmdata")
	addr := freeAddr(tb)
	s := run(tb, "http://"+addr, data, "/health", exec.Command(bin, "-storageDataPath="+data, "-httpListenAddr="+addr,
		// The test's history is older than the default month of retention
		// once the calendar moves on: keep it, as Start's Prometheus does.
		"-retentionPeriod=100y", "-loggerLevel=ERROR"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/v1/import/prometheus", bytes.NewReader(exposition))
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("victoria-metrics import: %v", err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		tb.Fatalf("victoria-metrics import: %s: %s", resp.Status, body)
	}
	// Imported samples reach queries after the in-memory buffers are
	// flushed: ask for that rather than wait for the next flush (1 s).
	resp, err = http.Get(s.URL + "/internal/force_flush")
	if err != nil {
		tb.Fatalf("victoria-metrics force_flush: %v", err)
	}
	body, _ = io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	// A failed flush would read later as samples missing from the answers,
	// far from its cause.
	if resp.StatusCode/100 != 2 {
		tb.Fatalf("victoria-metrics force_flush: %s: %s", resp.Status, body)
	}
	return s
}

// Exposition builds what /api/v1/import/prometheus takes: Prometheus' text
// format, each sample with its timestamp in milliseconds (OpenMetrics has
// seconds). Call Family, then Sample for each point.
type Exposition struct {
	b      bytes.Buffer
	family string
}

// Family starts a gauge family.
func (e *Exposition) Family(name string) {
	e.family = name
	fmt.Fprintf(&e.b, "# TYPE %s gauge\n", name)
}

// Sample adds one point of the current family; labels are k=v pairs in order.
func (e *Exposition) Sample(labels []string, at time.Time, v string) {
	writeSeries(&e.b, e.family, labels)
	e.b.WriteByte(' ')
	e.b.WriteString(v)
	e.b.WriteByte(' ')
	e.b.WriteString(strconv.FormatInt(at.UnixMilli(), 10))
	e.b.WriteByte('\n')
}

// Bytes returns the text.
func (e *Exposition) Bytes() []byte { return bytes.Clone(e.b.Bytes()) }
