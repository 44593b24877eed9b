package proctest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFreePortOutsideEphemeralRange: the invariant of FreePort, over many
// draws — every port it returns lies below the kernel's ephemeral range
// (asked of sysctl here, not read the way FreePort reads it) and could be bound when returned.
func TestFreePortOutsideEphemeralRange(t *testing.T) {
	first := 32768
	if out, err := exec.Command("sysctl", "-n", "net.ipv4.ip_local_port_range").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				first = n
			}
		}
	}
	seen := map[int]bool{}
	for range 500 {
		p := FreePort(t)
		if p < 1024 || p >= first {
			t.Fatalf("FreePort = %d, want a port in [1024, %d): the ephemeral range starts at %d", p, first, first)
		}
		seen[p] = true
	}
	// 500 draws over ~22,000 ports: a fixed or narrow choice would repeat
	// far more often than this (expected distinct ≈ 494).
	if len(seen) < 450 {
		t.Errorf("500 draws gave only %d distinct ports: the choice is not spread", len(seen))
	}
}

// recorder is a testing.TB whose Fatal ends only the goroutine it runs on,
// so a test can see that a helper failed and why.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.failed = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

// TestWaitHTTPRefusesAnotherServersAnswer: a server that lost its port
// exits a moment after another server answered on that address; WaitHTTP
// must fail instead of handing the test the other server. The losing
// process exits only once the other server has answered (it waits for the
// file the answer creates), so the order is the race's, not a guess of
// sleeps. A process that keeps running is accepted.
func TestWaitHTTPRefusesAnotherServersAnswer(t *testing.T) {
	answered := filepath.Join(t.TempDir(), "answered")
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		os.WriteFile(answered, nil, 0o600)
	}))
	defer other.Close()
	for _, tc := range []struct {
		script string
		fails  bool
	}{
		{`while [ ! -e "$1" ]; do sleep 0.01; done; echo 'listen tcp: bind: address already in use'; exit 1`, true},
		{"exec sleep 30", false},
	} {
		os.Remove(answered)
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			p := Start(t, "sh", "-c", tc.script, "sh", answered)
			p.WaitHTTP(r, "server", other.URL, 5*time.Second)
		}()
		<-done
		if got := r.failed != ""; got != tc.fails {
			t.Errorf("%q: WaitHTTP failed = %v (%q), want %v", tc.script, got, r.failed, tc.fails)
		}
		if tc.fails && !strings.Contains(r.failed, "address already in use") {
			t.Errorf("%q: the failure does not show the process's output: %q", tc.script, r.failed)
		}
	}
}
