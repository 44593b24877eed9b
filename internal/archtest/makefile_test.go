package archtest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/testenv"
)

// TestMakeScreenshotsLeavesTrackedFiles: `make screenshots` writes to the
// ignored out/screenshots/ and copies over the tracked docs/screenshots/
// only when asked with UPDATE=1 (issue #27: every run overwrote them). Make
// prints what it would run (-n); git says whether the folder is ignored.
func TestMakeScreenshotsLeavesTrackedFiles(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		testenv.Missing(t, "make not found: install it (apt-get install -y make) to check the Makefile")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		args       []string
		writesDocs bool
	}{
		{"default", []string{"-n", "screenshots"}, false},
		{"UPDATE=1", []string{"-n", "screenshots", "UPDATE=1"}, true},
		{"UPDATE=0", []string{"-n", "screenshots", "UPDATE=0"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(mk, tc.args...)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make %s: %v\n%s", strings.Join(tc.args, " "), err, out)
			}
			writes := false
			for _, line := range strings.Split(string(out), "\n") {
				line = strings.TrimSpace(line)
				if strings.HasPrefix(line, "echo ") {
					continue // a message naming the folder writes nothing
				}
				if strings.Contains(line, "docs/screenshots") {
					writes = true
				}
			}
			if writes != tc.writesDocs {
				t.Errorf("make %s writes docs/screenshots: %v, want %v\n%s", strings.Join(tc.args, " "), writes, tc.writesDocs, out)
			}
			if !strings.Contains(string(out), "scripts/screenshots.sh out") {
				t.Errorf("make %s does not take the screenshots into out/:\n%s", strings.Join(tc.args, " "), out)
			}
		})
	}

	git, err := exec.LookPath("git")
	if err != nil {
		testenv.Missing(t, "git not found: install it to check out/screenshots/ is ignored")
	}
	cmd := exec.Command(git, "check-ignore", "-q", "out/screenshots/report-phone.png")
	cmd.Dir = root
	if err := cmd.Run(); err != nil {
		t.Errorf("git check-ignore out/screenshots/report-phone.png: %v: the screenshots' folder is not ignored", err)
	}
}
