// Package capped reads the small files a user hands finops (finops.yaml, a
// price catalog, a scenario file) with a ceiling on their size, so a huge or
// endless file (a 50 MB config, /dev/zero) is refused after reading at most
// the limit instead of being held in memory whole and then parsed.
package capped

import (
	"fmt"
	"io"
	"os"
)

// TooLargeError is a file over its size limit. Size is the file's size when
// the file system knows it (0 for a pipe or device, which are read up to the
// limit only).
type TooLargeError struct {
	Path  string
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	size := "more than " + Bytes(e.Limit)
	if e.Size > e.Limit {
		size = Bytes(e.Size)
	}
	return fmt.Sprintf("%s is %s, over the %s limit: is it the right file?", e.Path, size, Bytes(e.Limit))
}

// ReadFile reads path, refusing it with a *TooLargeError once it holds more
// than limit bytes. It never reads more than limit+1 bytes, whatever the file
// system says the size is (a FIFO or /proc file reports 0).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
		if size > limit {
			return nil, &TooLargeError{Path: path, Size: size, Limit: limit}
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		// Grown since Stat, or a device that never ends.
		return nil, &TooLargeError{Path: path, Size: size, Limit: limit}
	}
	return b, nil
}

// Bytes writes a size for people: 4 MiB, 52.4 MiB, 900 bytes.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
