//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import (
	"errors"
	"os"
)

// On platforms without flock the run lock is not available: say so rather
// than pretend two runs are kept apart.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("run locking needs flock(2), which this platform lacks")
}

func unlock(*os.File) error { return nil }

// linkCount is 1 where the platform's stat does not say.
func linkCount(os.FileInfo) uint64 { return 1 }
