// Package promtest starts a real Prometheus server for tests: history is
// backfilled with `promtool tsdb create-blocks-from openmetrics` into a fresh
// data folder, and the server (Debian's prometheus package) is started on a
// free 127.0.0.1 port on that folder, then stopped when the test ends.
// StartVictoriaMetrics does the same with VictoriaMetrics' single-node server,
// fed through its import API.
package promtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/proctest"
	"github.com/finops-oss/finops/internal/testenv"
)

// Install is how a machine gets the binaries.
const Install = "apt-get update && apt-get install -y prometheus (it brings promtool)"

// Binaries returns the paths of prometheus and promtool, failing the test in
// CI and skipping it elsewhere when they are missing.
func Binaries(tb testing.TB) (prometheus, promtool string) {
	tb.Helper()
	p, err1 := exec.LookPath("prometheus")
	t, err2 := exec.LookPath("promtool")
	if err1 != nil || err2 != nil {
		msg := fmt.Sprintf("prometheus/promtool not found (%v, %v): install with %s", err1, err2, Install)
		testenv.Missing(tb, msg)
	}
	return p, t
}

// Server is a running Prometheus (or VictoriaMetrics, or a Thanos
// component).
type Server struct {
	URL  string // http://127.0.0.1:PORT
	Dir  string // its data folder
	GRPC string // a Thanos component's StoreAPI address, 127.0.0.1:PORT
	cmd  *exec.Cmd
	done chan error
	log  *bytes.Buffer
}

// Start backfills openMetrics (text that must end with "# EOF", timestamps
// in seconds) and starts a server on it. The server is stopped at cleanup.
func Start(tb testing.TB, openMetrics []byte) *Server {
	tb.Helper()
	in := ""
	if len(openMetrics) > 0 {
		in = filepath.Join(tb.TempDir(), "history.om")
		if err := os.WriteFile(in, openMetrics, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return StartFile(tb, in)
}

// StartFile is Start from an OpenMetrics file (none when in is ""), for
// histories too large to hold in memory.
func StartFile(tb testing.TB, in string) *Server {
	tb.Helper()
	return startFile(tb, in, nil)
}

// startFile is StartFile with the server's external labels (k, v pairs),
// which a Thanos sidecar requires and adds to every series it serves.
func startFile(tb testing.TB, in string, externalLabels []string) *Server {
	tb.Helper()
	prom, tool := Binaries(tb)
	dir := tb.TempDir()
	data := filepath.Join(dir, "tsdb")
	if in != "" {
		// Week-long blocks instead of 2-hour ones: a few blocks open in a
		// second, 84 of them take several on a small machine.
		out, err := exec.Command(tool, "tsdb", "create-blocks-from", "openmetrics", "--quiet",
			"--max-block-duration=168h", in, data).CombinedOutput()
		if err != nil {
			tb.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
		}
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	// No scrape jobs: the server holds only the backfilled history.
	conf := "global:\n  scrape_interval: 1m\n"
	if len(externalLabels) > 0 {
		conf += "  external_labels:\n"
		for i := 0; i+1 < len(externalLabels); i += 2 {
			conf += fmt.Sprintf("    %s: %q\n", externalLabels[i], externalLabels[i+1])
		}
	}
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		tb.Fatal(err)
	}
	addr := freeAddr(tb)
	return run(tb, "http://"+addr, data, "/-/ready", exec.Command(prom, "--config.file="+cfg, "--storage.tsdb.path="+data,
		// Retention counts back from the newest block: keep the whole history.
		"--storage.tsdb.retention.time=100y", "--web.listen-address="+addr, "--log.level=warn"))
}

// run starts cmd as the server at url, stopped at cleanup, and waits until
// ready answers 200.
func run(tb testing.TB, url, dir, ready string, cmd *exec.Cmd) *Server {
	tb.Helper()
	s := &Server{URL: url, Dir: dir, cmd: cmd, done: make(chan error, 1), log: &bytes.Buffer{}}
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", filepath.Base(cmd.Path), err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	tb.Cleanup(s.Stop)
	if err := s.waitReady(ready, 30*time.Second); err != nil {
		s.Stop()
		tb.Fatalf("%s did not become ready: %v\n%s", filepath.Base(cmd.Path), err, s.log.String())
	}
	// One that exits a moment after its address answered lost the port to
	// another test's server, which is the one that answered.
	select {
	case err := <-s.done:
		s.done <- err
		tb.Fatalf("%s exited right after %s answered (another server holds the port?): %v\n%s",
			filepath.Base(cmd.Path), url, err, s.log.String())
	case <-time.After(200 * time.Millisecond):
	}
	return s
}

// freeAddr is a 127.0.0.1 address on a port proctest.FreePort chose:
// outside the kernel's ephemeral range, so no client socket takes it
// before the server binds it.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(proctest.FreePort(tb)))
}

func (s *Server) waitReady(path string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop ends the server (SIGTERM, then SIGKILL after 10 s). Tests call it to
// take Prometheus down; calling it again does nothing.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	select {
	case err := <-s.done:
		s.done <- err
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		s.done <- err
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		s.done <- <-s.done
	}
}

// OpenMetrics builds backfill text: call Family, then Sample for each point,
// and Bytes to end it with "# EOF".
type OpenMetrics struct {
	b      bytes.Buffer
	family string
}

// Family starts a gauge family.
func (o *OpenMetrics) Family(name string) {
	o.family = name
	fmt.Fprintf(&o.b, "# HELP %s %s\n# TYPE %s gauge\n", name, name, name)
}

// Sample adds one point of the current family; labels are k=v pairs in order.
func (o *OpenMetrics) Sample(labels []string, at time.Time, v string) {
	writeSeries(&o.b, o.family, labels)
	// OpenMetrics timestamps are seconds (fractions allowed).
	sec := at.Unix()
	if ms := at.UnixMilli() % 1000; ms != 0 {
		fmt.Fprintf(&o.b, " %s %d.%03d\n", v, sec, ms)
		return
	}
	fmt.Fprintf(&o.b, " %s %d\n", v, sec)
}

// Bytes ends the text with "# EOF", which promtool requires.
func (o *OpenMetrics) Bytes() []byte {
	out := bytes.Clone(o.b.Bytes())
	if !strings.HasSuffix(string(out), "# EOF\n") {
		out = append(out, "# EOF\n"...)
	}
	return out
}

// writeSeries writes a sample's series, name{k="v",...}, as both text
// formats spell it.
func writeSeries(b *bytes.Buffer, family string, labels []string) {
	b.WriteString(family)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "%s=%q", labels[i], labels[i+1])
		}
		b.WriteByte('}')
	}
}

// Flush writes the text built so far to w and empties the builder, so a
// history too large to hold can be written to a file in parts (for
// StartFile); end the file with Bytes.
func (o *OpenMetrics) Flush(w io.Writer) error {
	_, err := o.b.WriteTo(w)
	return err
}
