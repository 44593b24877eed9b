package ingest

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
)

// Archived reports whether the file at name is a compressed archive, by its
// name (.gz, .zst, .bz2, .xz, .zip) or, whatever the name says, by its first
// bytes, as Open decides. A follower of a growing log (finops watch) skips
// archives: logrotate's compressed generations are history, and their bytes
// are no text to tail.
func Archived(name string) (bool, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".gz", ".zst", ".bz2", ".xz", ".zip":
		return true, nil
	}
	f, err := openRegular(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [6]byte
	n, err := io.ReadFull(f, magic[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	return archiveMagic(magic[:n]), nil
}

// archiveMagic: gzip, zip (a local header or an empty archive's directory
// end), zstd, bzip2, xz.
func archiveMagic(b []byte) bool {
	for _, m := range [][]byte{{0x1f, 0x8b}, []byte("PK\x03\x04"), []byte("PK\x05\x06"),
		{0x28, 0xb5, 0x2f, 0xfd}, []byte("BZh"), {0xfd, '7', 'z', 'X', 'Z', 0}} {
		if bytes.HasPrefix(b, m) {
			return true
		}
	}
	return false
}
