package archtest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// heavyForFuzzing are the module paths whose packages are most of a cold
// compile: the AWS and Azure SDKs, and SQLite with its C library transpiled
// to Go. (GCS is reached over its JSON API with plain HTTP: no gRPC.)
var heavyForFuzzing = []string{"github.com/aws/", "github.com/Azure/", "modernc.org/"}

// maxInstrumented bounds the union of the fuzzed test binaries' packages:
// 410 when it was set, room for a few small ones more.
const maxInstrumented = 450

// fuzzTarget is how make test-fuzz finds a target in a test file.
var fuzzTarget = regexp.MustCompile(`^func Fuzz([^a-z(][A-Za-z0-9_]*)?\(`)

// TestFuzzedPackagesStayLight: invariant — the test binary of a package that
// holds a Fuzz target links no package of a cloud SDK or of SQLite, and all
// of them together link at most maxInstrumented packages (so a heavy
// dependency not named here fails too). go test
// -fuzz compiles every package of that binary again with coverage
// instrumentation, which nothing else in CI compiles, so each such package
// is paid for again by CI's fuzz pass (.ci/run): FuzzKey in publish and
// FuzzConversions in reportjob brought the AWS and Azure SDKs, SQLite and
// its C library into it (648 instrumented packages; 419 once they moved to
// objkey and analysisconf, and promtest stopped linking the AWS SDK through
// publishtest). A fuzz target of code that needs them belongs in a package
// of its own, or the code under fuzz does.
func TestFuzzedPackagesStayLight(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fuzzed := fuzzedPackages(t, root)
	if len(fuzzed) < 5 {
		// make test-fuzz's way of finding them must still find them.
		t.Fatalf("found %d packages with Fuzz targets (%v): the search no longer matches the test files", len(fuzzed), fuzzed)
	}
	// ImportPath.test is the test binary's main package: its Deps are
	// everything the binary links.
	args := append([]string{"list", "-test", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, fuzzed...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -test: %v", err)
	}
	binaries := 0
	instrumented := map[string]bool{} // every package the pass compiles instrumented
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasSuffix(f[0], ".test") {
			continue
		}
		binaries++
		for _, dep := range f[1:] {
			instrumented[dep] = true
		}
		for _, dep := range f[1:] {
			if m := heavyPrefix(dep); m != "" {
				t.Errorf("%s's test binary links %s (under %s): its Fuzz targets would compile it instrumented in CI's fuzz pass", strings.TrimSuffix(f[0], ".test"), dep, m)
				break
			}
		}
	}
	if binaries != len(fuzzed) {
		t.Errorf("go list -test named %d test binaries for %d fuzzed packages", binaries, len(fuzzed))
	}
	// The named SDKs are the heavy ones known today; any other heavy
	// dependency shows as growth of the union: 410 packages by this count
	// (the binaries' Deps) on 2026-12-07, once the SDKs were out.
	if len(instrumented) > maxInstrumented {
		t.Errorf("CI's fuzz pass would instrument %d packages (at most %d): a fuzzed package's tests link more than its parser needs; move the target or the code under fuzz to a small package", len(instrumented), maxInstrumented)
	}

	// Each prefix still matches something the product links, or the check
	// above could pass with paths that name nothing.
	all := exec.Command("go", "list", "-test", "-deps", "./...")
	all.Dir = root
	deps, err := all.Output()
	if err != nil {
		t.Fatalf("go list -test -deps ./...: %v", err)
	}
	for _, p := range heavyForFuzzing {
		if !strings.Contains(string(deps), "\n"+p) {
			t.Errorf("nothing the module links is under %s: heavyForFuzzing is out of date", p)
		}
	}
}

// heavyPrefix is the heavyForFuzzing prefix pkg lies under, or "".
func heavyPrefix(pkg string) string {
	for _, p := range heavyForFuzzing {
		if strings.HasPrefix(pkg, p) {
			return p
		}
	}
	return ""
}

// fuzzedPackages lists the module's packages with a Fuzz target in a test
// file, found as make test-fuzz finds them.
func fuzzedPackages(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{$p := .}}{{range .TestGoFiles}}{{$p.ImportPath}} {{$p.Dir}}/{{.}}{{"\n"}}{{end}}{{range .XTestGoFiles}}{{$p.ImportPath}} {{$p.Dir}}/{{.}}{{"\n"}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, file, ok := strings.Cut(line, " ")
		if !ok || len(pkgs) > 0 && pkgs[len(pkgs)-1] == pkg {
			continue
		}
		if hasFuzzTarget(t, file) {
			pkgs = append(pkgs, pkg)
		}
	}
	return pkgs
}

func hasFuzzTarget(t *testing.T, file string) bool {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if fuzzTarget.MatchString(sc.Text()) {
			return true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return false
}
