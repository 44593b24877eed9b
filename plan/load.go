package plan

import (
	"fmt"
	"os"
)

// Load reads and parses a scenario file. It is the package's only file
// access; everything else works on the parsed File.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return Parse(path, b)
}
