package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cloudModules are the module paths of the cloud storage clients: the AWS
// SDK, the Azure SDK and its identity library, Google's OAuth.
var cloudModules = []string{"github.com/aws/", "github.com/Azure/", "github.com/AzureAD/", "golang.org/x/oauth2"}

// TestDemoBuildLeavesCloudOut: invariant — the demo's build (make demo,
// -tags finops_nocloud) links no package of a cloud storage client, and
// every way to reach a cloud store in it (an s3://, az:// or gs:// source)
// fails naming the full build, while the demo itself runs whole. The
// first half is what makes the README's first command quick (a fifth of
// a cold build: docs/BENCHMARKS.md §Build weight); the second, that the
// demo's binary never passes for the product with a feature missing.
func TestDemoBuildLeavesCloudOut(t *testing.T) {
	cmd := exec.Command(goTool(t), "list", "-deps", "-tags", "finops_nocloud", "../cmd/finops")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -tags finops_nocloud ../cmd/finops: %v", err)
	}
	demo := strings.Fields(string(out))
	for _, p := range demo {
		for _, m := range cloudModules {
			if strings.HasPrefix(p, m) {
				t.Errorf("the demo's build links %s", p)
			}
		}
	}
	full, err := exec.Command(goTool(t), "list", "-deps", "../cmd/finops").Output()
	if err != nil {
		t.Fatal(err)
	}
	// The full build does link them: without this the check above could
	// pass with module paths that no longer match anything.
	for _, m := range cloudModules {
		if !strings.Contains(string(full), "\n"+m) {
			t.Errorf("the full build links nothing under %s: cloudModules is out of date", m)
		}
	}

	mk, err := exec.LookPath("make")
	if err != nil {
		t.Fatal("make is not on PATH: the README's make demo cannot be checked")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "finops-demo")
	// DEMO_CGO= DEMO_TRIMPATH=: the build make test has, not a static
	// -trimpath one, so that the demo's packages come from the build cache
	// (make vet compiled the tagged ones) instead of a second compile of
	// the whole tree, standard library included: about 200 s of CPU on a
	// cold CI run. Neither flag changes which packages are linked, which
	// the go list above checks with CGO_ENABLED=0 as make demo builds.
	run := exec.Command(mk, "-s", "-C", repoRoot(t), "demo", "DEMO_BIN="+bin, "DEMO_OUT="+filepath.Join(dir, "out"),
		"DEMO_CGO=", "DEMO_TRIMPATH=", "GO="+goTool(t))
	run.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("make demo: %v\n%s", err, out)
	}
	for _, ext := range []string{".xlsx", ".html", ".json"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "out", "finops-*"+ext)); len(m) == 0 {
			t.Errorf("make demo wrote no %s report in %s", ext, filepath.Join(dir, "out"))
		}
	}
	for _, src := range []string{"s3://billing/focus/", "az://acct/billing/focus/", "gs://billing/focus/"} {
		cmd := exec.Command(bin, "--db", filepath.Join(dir, "cloud.db"), "ingest", src)
		out, err := cmd.CombinedOutput()
		// 1 or 2, as the full build exits when it cannot make that client.
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() == 0 || err == nil {
			t.Errorf("demo build, ingest %s: %v, want a failure\n%s", src, err, out)
		}
		if !strings.Contains(string(out), "make build") || !strings.Contains(string(out), "the demo's build") {
			t.Errorf("demo build, ingest %s: the error does not name the full build:\n%s", src, out)
		}
	}
}
