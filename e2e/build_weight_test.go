package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// linkBudget is how many packages the default build of cmd/finops may
// link (docs/BENCHMARKS.md §Build weight: 644 on 2026-12-07). A cold
// build's time grows with them, and the README's first command, make
// demo, starts with one; a new dependency that needs more is a decision
// recorded there, with this budget raised beside it.
const linkBudget = 655

// TestBuildWeightBudget: invariant — the default (pure-Go) build of
// cmd/finops links at most linkBudget packages. Azure's azblob v1.8.1
// brought the Apache Arrow and goccy/go-json stacks (37 packages, about a
// ninth of a cold build's compile time) for a listing format finops never
// asks for; this fails on any such addition, whichever module brings it.
func TestBuildWeightBudget(t *testing.T) {
	cmd := exec.Command(goTool(t), "list", "-deps", "../cmd/finops")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ../cmd/finops: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) > linkBudget {
		var heavy []string
		for _, p := range pkgs {
			if strings.Contains(p, ".") && !strings.HasPrefix(p, "github.com/finops-oss/") {
				heavy = append(heavy, p)
			}
		}
		t.Errorf("cmd/finops links %d packages, over the budget of %d: measure the cold build (docs/BENCHMARKS.md "+
			"§Build weight), record the choice there and raise linkBudget, or drop the dependency; third-party packages:\n%s",
			len(pkgs), linkBudget, strings.Join(heavy, "\n"))
	}
}
