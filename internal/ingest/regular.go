package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/finops-oss/finops/internal/capped"
)

// Inputs are regular files. A FIFO blocks in open until a writer comes (and
// then for as long as it writes), a device such as /dev/zero never ends, and
// neither can be hashed, so both would hang a scheduled run while it holds
// the run lock. They are refused from their stat, before any open.

// NotRegularError is a path that is not a regular file (or a link to one):
// a FIFO, socket, device or a folder where a file was expected.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	fix := "copy the data into a file and ingest that"
	if e.Mode.IsDir() {
		fix = "a file was expected here; to read the files in a folder, name the folder itself"
	}
	return fmt.Sprintf("%s: %s, not a regular file: finops reads only regular files (and .gz/.zip of them); %s",
		e.Path, capped.FileType(e.Mode), fix)
}

// CheckRegular refuses, from its stat alone, a path that is not a regular
// file or a symbolic link to one. It is the one check of every input: files
// named on the command line, found in folders and globs, and listed in
// manifests.
func CheckRegular(name string) error {
	// Standard input ("-", /dev/stdin) is the one exception to allow, and
	// the place is here, by name, before the stat: it is a pipe or a
	// terminal, exactly what this refuses.
	fi, err := os.Stat(name)
	if err != nil {
		return err
	}
	return checkMode(name, fi.Mode())
}

// checkMode is the rule itself, for callers that already have a mode.
func checkMode(name string, mode fs.FileMode) error {
	if mode.IsRegular() {
		return nil
	}
	return &NotRegularError{Path: name, Mode: mode}
}

// openRegular opens a regular file for reading. The stat check comes first;
// the open is non-blocking and the open file is checked again, so a path
// swapped for a FIFO in between is refused instead of blocking in open.
// O_NONBLOCK has no effect on reading a regular file.
func openRegular(name string) (*os.File, error) {
	if err := CheckRegular(name); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkMode(name, fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// HashFile returns the hex sha256 and the size of a regular file's bytes (as
// stored, not decompressed): the identity under which the store records an
// import, and the checksum a delivery uploads with. It stops when ctx is
// done, however large the file.
func HashFile(ctx context.Context, name string) (sum string, size int64, err error) {
	f, err := openRegular(name)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	if size, err = io.Copy(h, ContextReader(ctx, f)); err != nil {
		return "", 0, fmt.Errorf("%s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}

// ContextReader returns a reader that fails with ctx's error once ctx is
// done. Each Read of a regular file returns promptly, so a loop reading
// through it (hashing, decompressing, parsing) ends within one Read of a
// signal, however long its records.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

// stopped reports whether a read failed because its context was done: a
// signal, not something wrong with the file.
func stopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
