// Package fetchtest starts the real servers the fetch tests talk to —
// Azurite (Azure Blob Storage's emulator) and fake-gcs-server (Google Cloud
// Storage's JSON API) — on 127.0.0.1 with free ports, in memory, waits
// until they answer, and stops them when the test ends.
//
// Where the binaries are found:
//   - Azurite: $FINOPS_AZURITE_BLOB (the azurite-blob script), else
//     azurite-blob on PATH. .ci/run installs it with
//     `npm install --prefix /opt/azurite azurite@3.37.0` and puts
//     /opt/azurite/node_modules/.bin on PATH.
//   - fake-gcs-server: PATH, $GOBIN or $(go env GOPATH)/bin, where
//     `go install github.com/fsouza/fake-gcs-server@v1.56.1` puts it.
//
// Without them a test is skipped with the install command, except in CI
// (CI=true or FINOPS_TEST_REQUIRE=1), where it fails (internal/testenv).
package fetchtest

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Install commands, pinned as in .ci/run.
const (
	AzuriteInstall = "npm install --prefix /opt/azurite azurite@3.37.0 and add /opt/azurite/node_modules/.bin to PATH (or set FINOPS_AZURITE_BLOB to its azurite-blob)"
	FakeGCSInstall = "go install github.com/fsouza/fake-gcs-server@v1.56.1"
)

// process is a started server binary.
type process struct {
	mu   sync.Mutex
	log  bytes.Buffer
	cmd  *exec.Cmd
	done chan struct{}
}

func start(t testing.TB, bin string, args ...string) *process {
	t.Helper()
	p := &process{done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout = p
	p.cmd.Stderr = p
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(p.stop)
	return p
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Write(b)
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

func (p *process) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.done
}

// waitHTTP polls url until it answers (any status) or the process exits.
func waitHTTP(t testing.TB, p *process, name, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("%s exited while starting:\n%s", name, p.output())
		default:
		}
		resp, err := http.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not answer at %s within 30s:\n%s", name, url, p.output())
}
