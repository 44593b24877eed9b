package templates

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportParses(t *testing.T) {
	tpl := Report()
	for _, name := range []string{"report.html.tmpl", "report.css"} {
		if tpl.Lookup(name) == nil {
			t.Errorf("template %q missing", name)
		}
	}
	// A fresh template per call: callers cannot affect each other.
	if Report() == tpl {
		t.Error("Report returned a shared template")
	}
}

func TestEmailParses(t *testing.T) {
	first, second := Email(), Email()
	if first == second {
		t.Error("Email returned a shared template")
	}
}

func TestEChartsMatchesPinnedHash(t *testing.T) {
	want, err := fs.ReadFile(assets, "assets/echarts.min.js.sha256")
	if err != nil {
		t.Fatalf("the pinned hash must be committed: %v", err)
	}
	// The library is committed, so every build has charts: an empty or
	// altered file fails here (a deleted one fails to compile). The hash is
	// the one fetch-echarts.sh recorded from the npm release, not one this
	// test computes from the file.
	lib := ECharts()
	if lib == nil {
		t.Fatal("internal/templates/assets/echarts.min.js is empty: restore it with git checkout or make assets")
	}
	sum := sha256.Sum256(lib)
	if got := hex.EncodeToString(sum[:]); got != strings.Fields(string(want))[0] {
		t.Errorf("embedded echarts.min.js sha256 = %s, pinned %s", got, want)
	}
}

// fetch-echarts.sh must fail, not exit 0 with a warning, when it needs the
// network and cannot fetch: before the library was committed an offline
// Docker build silently made a chartless image. An npm that always fails
// stands in for being offline.
func TestFetchEChartsFailsOffline(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	script, err := os.ReadFile("fetch-echarts.sh")
	if err != nil {
		t.Fatal(err)
	}
	hash, err := fs.ReadFile(assets, "assets/echarts.min.js.sha256")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	for name, data := range map[string][]byte{
		"fetch-echarts.sh":             script,
		"assets/echarts.min.js.sha256": hash,
		"assets/echarts.min.js":        []byte("/* not the pinned build */"),
		"bin/npm":                      []byte("#!/bin/sh\necho 'npm error network request failed' >&2\nexit 1\n"),
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bash, filepath.Join(dir, "fetch-echarts.sh"))
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("offline fetch: err %v, want exit 1\n%s", err, out)
	}
	for _, want := range []string{"error: npm pack echarts@", "git checkout -- internal/templates/assets"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Nothing unverified was installed over the file.
	if got, _ := os.ReadFile(filepath.Join(dir, "assets/echarts.min.js")); string(got) != "/* not the pinned build */" {
		t.Errorf("echarts.min.js changed to %d bytes", len(got))
	}
}
