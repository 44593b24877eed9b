package plan

import (
	"fmt"

	"github.com/finops-oss/finops/internal/capped"
)

// MaxFileBytes is the most a scenario file may hold: a real one is a few
// KiB, and YAML takes tens of times a file's size in memory to parse.
const MaxFileBytes = 4 << 20

// Load reads and parses a scenario file, refusing one over MaxFileBytes
// before reading more than that. It is the package's only file access;
// everything else works on the parsed File.
func Load(path string) (*File, error) {
	b, err := capped.ReadFile(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return Parse(path, b)
}
