// Package proctest starts the real servers tests talk to as processes: it
// finds a server's binary (or applies CI's rule for a missing one), picks a
// free port on 127.0.0.1 that no client socket can take, and starts, waits
// on and stops the process, keeping its output for failure messages.
//
// It is its own package, apart from publishtest's S3 and mail servers,
// because the Prometheus, Azure and GCS test servers need only this part:
// through publishtest they linked the AWS SDK into every test binary that
// starts one, the fuzzed internal/ingest/prom's instrumented build among
// them (CI's fuzz pass instruments every package a fuzzed binary links).
package proctest

import (
	"bytes"
	"fmt"
	"go/build"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/testenv"
)

// Binary finds an installed binary: PATH, then $GOBIN, then each
// $GOPATH/bin (go env GOPATH's default included).
func Binary(t testing.TB, name, install string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	gopath := build.Default.GOPATH
	// `go env -w` settings live in go's own env file: ask go when it is here.
	if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			if gobin := strings.TrimSpace(lines[0]); gobin != "" {
				dirs = append(dirs, gobin)
			}
			gopath = strings.TrimSpace(lines[1]) + string(filepath.ListSeparator) + gopath
		}
	}
	for _, gp := range filepath.SplitList(gopath) {
		if d := filepath.Join(gp, "bin"); gp != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	msg := fmt.Sprintf("%s not found on PATH or in %s; install it with: %s", name, strings.Join(dirs, ", "), install)
	testenv.Missing(t, msg)
	return ""
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago and
// that no outgoing connection can take: it lies below the kernel's
// ephemeral range (net.ipv4.ip_local_port_range), from which every client
// socket of every test process takes its local port. A port the kernel
// hands out for "127.0.0.1:0" is in that range, so between FreePort closing
// it and the server binding it, any HTTP client of a parallel test could be
// given it; the server then exits with "address already in use" while the
// test talks to whatever holds the port. Ports outside the range can only
// clash with another test's FreePort choice, which the random choice over
// thousands of ports makes rare, and WaitHTTP notices.
func FreePort(t testing.TB) int {
	t.Helper()
	lo, hi := belowEphemeral()
	for range 200 {
		port := lo + rand.IntN(hi-lo)
		if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
			l.Close()
			return port
		}
	}
	// Everything tried was taken: fall back to the kernel's choice.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// belowEphemeral is the range [lo, hi) FreePort chooses from: from 10000 up
// to the first port of the kernel's ephemeral range (Linux's default
// 32768, also used where the range cannot be read).
func belowEphemeral() (lo, hi int) {
	lo, hi = 10000, 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	if f := strings.Fields(string(b)); len(f) == 2 {
		if first, err := strconv.Atoi(f[0]); err == nil && first > lo+1000 {
			hi = first
		}
	}
	return lo, hi
}

// Process is a started server binary, its output kept for the failure
// messages.
type Process struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	log  bytes.Buffer
	done chan struct{}
}

// Start starts bin with args; it is killed when the test ends, if
// Stop has not stopped it before.
func Start(t testing.TB, bin string, args ...string) *Process {
	t.Helper()
	p := &Process{done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout = p
	p.cmd.Stderr = p
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(p.Stop)
	return p
}

// Stop kills the process and waits for it; stopping a stopped one does
// nothing.
func (p *Process) Stop() {
	if p == nil || p.cmd == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.done
}

// Done is closed when the process has exited (a server that lost its port
// to another test's exits at once: the caller may start it again elsewhere).
func (p *Process) Done() <-chan struct{} { return p.done }

// Write keeps the process's output.
func (p *Process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Write(b)
}

// Output is what the process has written so far.
func (p *Process) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// WaitHTTP polls url until it answers (any status); the test fails if the
// process exits first or within passes (a server written in Node starts
// slower than one in Go).
func (p *Process) WaitHTTP(t testing.TB, name, url string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("%s exited while starting:\n%s", name, p.Output())
		default:
		}
		resp, err := http.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			p.stillRunning(t, name)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not answer at %s within %v:\n%s", name, url, within, p.Output())
}

// stillRunning fails the test when the process exits within a moment of
// its address answering: then something else answered there (a server
// that lost its port to another test's exits within milliseconds), and
// the test would talk to the wrong server.
func (p *Process) stillRunning(t testing.TB, name string) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(200 * time.Millisecond):
		return
	}
	t.Fatalf("%s exited right after its address answered (another server holds the port?):\n%s", name, p.Output())
}
