package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/ingest/nvml"
	"github.com/finops-oss/finops/internal/store"
)

// goTool is the go command of the toolchain running the test.
func goTool(t *testing.T) string {
	t.Helper()
	// Deprecated for binaries copied elsewhere; a test binary runs where go
	// test built it, and under go test GOROOT is the running toolchain's.
	//lint:ignore SA1019 a test binary never leaves the toolchain that built it
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no go command at %s", p)
	}
	return p
}

// The default build is pure Go: go-nvml (cgo, and 29 deprecation warnings
// from its C headers on a cold build) is linked only with -tags nvml, even
// where cgo is enabled; the default binary's collect nvml names the tagged
// build instead of collecting.
func TestHostileNVMLOnlyWithTag(t *testing.T) {
	if nvmlTag {
		t.Skip("this test binary was built with -tags nvml")
	}
	cmd := exec.Command(goTool(t), "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if strings.Contains(string(out), "github.com/NVIDIA/go-nvml") {
		t.Error("the default build (CGO_ENABLED=1, no tags) links github.com/NVIDIA/go-nvml")
	}
	if nvml.Available {
		t.Error("nvml.Available in a build without -tags nvml")
	}
	code, stdout, stderr := runFinops(t, "collect", "nvml", "--out", t.TempDir())
	if code != cli.ExitFailed || !strings.Contains(stderr, "go build -tags nvml") {
		t.Errorf("collect nvml in the default build: exit %d, want %d and the tagged build command\n%s%s", code, cli.ExitFailed, stdout, stderr)
	}
	_, help, _ := runFinops(t, "collect", "nvml", "--help")
	if !strings.Contains(help, "-tags nvml") {
		t.Errorf("collect nvml --help does not say how to get the tagged build:\n%s", help)
	}
}

// `finops --version` answers exactly what `finops version` does: the version
// and the database schema it writes (cobra's default would be "finops version
// dev" without the schema), on stdout, exit 0.
func TestHostileVersionFlag(t *testing.T) {
	// The expected line is built from its parts here, not from versionLine.
	want := "finops dev (schema " + strconv.Itoa(store.SchemaVersion()) + ")\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := runFinops(t, args...)
		if code != cli.ExitOK || stdout != want || stderr != "" {
			t.Errorf("finops %s: exit %d, stdout %q, stderr %q; want 0 and %q", args[0], code, stdout, stderr, want)
		}
	}
}

// make install puts bin/finops where the README's `finops …` commands find
// it: $(PREFIX)/bin with PREFIX, else the first GOPATH's bin, as go install
// does (GOBIN unset). build is marked up to date (-o build) and BIN points at a
// stand-in file, so the test copies a file instead of compiling finops.
func TestHostileMakeInstall(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on PATH")
	}
	root := repoRoot(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "finops-built")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gopath := filepath.Join(dir, "gopath")
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want string // where finops lands
	}{
		{"PREFIX", []string{"PREFIX=" + filepath.Join(dir, "prefix")}, nil, filepath.Join(dir, "prefix", "bin", "finops")},
		{"GOPATH", nil, []string{"GOBIN=", "GOPATH=" + gopath + string(os.PathListSeparator) + filepath.Join(dir, "second")}, filepath.Join(gopath, "bin", "finops")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(mk, append([]string{"-s", "-C", root, "-o", "build", "install", "BIN=" + bin, "GO=" + goTool(t)}, tc.args...)...)
			cmd.Env = append(append(os.Environ(), "GOFLAGS=", "GOENV=off"), tc.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make install: %v\n%s", err, out)
			}
			fi, err := os.Stat(tc.want)
			if err != nil {
				t.Fatalf("finops not installed at %s: %v\n%s", tc.want, err, out)
			}
			if fi.Mode().Perm() != 0o755 {
				t.Errorf("%s mode %v, want 0755", tc.want, fi.Mode().Perm())
			}
		})
	}
}

// make test runs go test through internal/testsummary, whose last lines list
// the skipped tests (TestSummarize checks the listing): plain go test ./...
// printed ok while the S3, SMTP and browser tests skipped.
func TestHostileMakeTestListsSkips(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on PATH")
	}
	root := repoRoot(t)
	out, err := exec.Command(mk, "-n", "-C", root, "test", "GO=go").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "go run ./internal/testsummary -count=1 ./...") {
		t.Errorf("make test does not run go test through internal/testsummary:\n%s", out)
	}
}
