package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A scenario file over 4 MiB is refused by name, size and limit before it
// is parsed; an endless one (/dev/zero) after reading 4 MiB.
func TestLoadSizeCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.yaml")
	// A valid-looking start, then comments: only the size is wrong.
	b := append([]byte("scenarios: []\n"), strings.Repeat("# padding\n", (6<<20)/10)...)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// 14 + 6,291,450 bytes = 6.0 MiB by hand.
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), "plan: "+p+" is 6.0 MiB, over the 4 MiB limit") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := Load("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero is more than 4 MiB") {
			t.Errorf("/dev/zero: err = %v", err)
		}
	}
}

// The YAML alias bomb is refused quickly, not expanded.
func TestLoadAliasBomb(t *testing.T) {
	start := time.Now()
	_, err := Load("../../testdata/yaml/billion-laughs.yaml")
	if err == nil || !strings.Contains(err.Error(), "billion-laughs.yaml") {
		t.Errorf("err = %v, want a refusal naming the file", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
