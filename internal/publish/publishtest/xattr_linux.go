package publishtest

import (
	"os"
	"path/filepath"
	"syscall"
)

// xattrSupported reports whether files in dir take user extended attributes
// (versitygw's posix backend stores object metadata in them).
func xattrSupported(dir string) bool {
	f, err := os.CreateTemp(dir, ".xattr-probe-*")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	defer os.Remove(filepath.Clean(name))
	return syscall.Setxattr(name, "user.finops-probe", []byte("1"), 0) == nil
}
