package demo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Fresh is Generate into dir with the fleet's database removed (with its
// -wal and -shm files): the demo must show the same numbers on every run,
// which an earlier run's imports would change.
func Fresh(dir string, now time.Time, seed uint64) (*Fleet, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	fleet, err := Generate(dir, now, seed)
	if err != nil {
		return nil, err // it says demo:
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(fleet.Config.Database + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	return fleet, nil
}
