package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// TestDoctorChatChannel (issue 33): `finops doctor` has a line per chat
// channel of watch.channels; a reachable one is OK, one whose URL file is
// missing fails the doctor (exit 1), and the receiver is sent no request.
func TestDoctorChatChannel(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { posts.Add(1) }))
	defer srv.Close()
	dir := t.TempDir()
	urlFile := filepath.Join(dir, "hook.url")
	if err := os.WriteFile(urlFile, []byte(srv.URL+"/hook/tok-5150\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(channels string) string {
		cfg := filepath.Join(dir, "finops.yaml")
		if err := os.WriteFile(cfg, []byte("currency: CNY\ndatabase: "+filepath.Join(dir, "finops.db")+
			"\nwatch:\n  channels:\n"+channels), 0o600); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	chatLine := regexp.MustCompile(`(?m)^(OK|FAIL|SKIP)\s+chat\s+(.*)$`)

	cfg := write("    - {type: slack, url_file: " + urlFile + "}\n")
	code, out, errs := runFinops(t, "--config", cfg, "doctor")
	lines := chatLine.FindAllStringSubmatch(out, -1)
	if code != cli.ExitOK || len(lines) != 1 || lines[0][1] != "OK" || !strings.Contains(lines[0][2], "slack#0: URL ok") ||
		!strings.Contains(lines[0][2], "nothing posted") || strings.Contains(out, "tok-5150") {
		t.Errorf("doctor with a reachable channel: exit %d, chat lines %q\n%s%s", code, lines, out, errs)
	}

	cfg = write("    - {type: slack, url_file: " + urlFile + "}\n    - {type: json, url_file: " + filepath.Join(dir, "none.url") + "}\n")
	code, out, errs = runFinops(t, "--config", cfg, "doctor")
	lines = chatLine.FindAllStringSubmatch(out, -1)
	if code != cli.ExitFailed || len(lines) != 2 || lines[1][1] != "FAIL" || !strings.Contains(lines[1][2], "json#1: the URL: url_file") {
		t.Errorf("doctor with a missing URL file: exit %d, chat lines %q\n%s%s", code, lines, out, errs)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("doctor sent the channel %d requests, want 0", n)
	}
}
