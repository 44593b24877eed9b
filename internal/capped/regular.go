package capped

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is a path that is not a regular file (or a link to one):
// a FIFO, socket, device or folder where a small file was expected.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// FileMode is the mode of what was found: how config, which cannot import
// this package, tells a folder from a pipe (errors.As on an interface).
func (e *NotRegularError) FileMode() fs.FileMode { return e.Mode }

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: %s, not a regular file", e.Path, FileType(e.Mode))
}

// FileType names a file's type for people: "a named pipe (FIFO)", "a folder".
func FileType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}

// ReadRegular reads the regular file at path (a symbolic link to one is
// followed) like ReadFile, but refuses anything else from its stat, before
// any open, with a *NotRegularError: opening a FIFO blocks until a writer
// comes (in a system call no signal ends, holding whatever lock the caller
// holds), and a device such as /dev/zero never ends. The open is
// non-blocking and the open file is checked again, so a path swapped for a
// FIFO in between is refused, not waited on. It reads at most limit+1 bytes,
// whatever the stat said, so a file growing meanwhile is refused too, and it
// stops when ctx is done.
func ReadRegular(ctx context.Context, path string, limit int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > limit {
		return nil, &TooLargeError{Path: path, Size: fi.Size(), Limit: limit}
	}
	// O_NONBLOCK has no effect on reading a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	b, err := io.ReadAll(io.LimitReader(ctxReader{ctx, f}, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		// Grown since the stat.
		return nil, &TooLargeError{Path: path, Size: fi.Size(), Limit: limit}
	}
	return b, nil
}

// ctxReader fails with ctx's error once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
