package rollup

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxShardBytes bounds one shard file. A week of 10,000 GPUs writes a
// summary of tens of megabytes (its idle spans), and decoding one takes
// several times its size in memory: a file past 64 MiB is refused before
// it is read, not read whole.
const MaxShardBytes = 64 << 20

// readShardFile is the bytes of the shard file at path: a regular file (a
// link is followed) of at most MaxShardBytes. A FIFO, a device or a folder
// is refused from its os.Stat, before it is opened, so that opening a FIFO
// no one writes to never blocks; it is opened non-blocking all the same, in
// case the path is swapped for one between the two, and what was opened is
// checked again. The read goes through an io.LimitReader, so a file that
// grows after the check cannot take more than the cap either.
func readShardFile(ctx context.Context, path, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, refuse("shard %s: %v: name an existing `finops report --format json` summary", name, err)
	}
	if err := regularUnderCap(fi, path, name); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, refuse("shard %s: %v: name a readable `finops report --format json` summary", name, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("rollup: shard %s: %w", name, err)
	}
	if err := regularUnderCap(opened, path, name); err != nil {
		return nil, err
	}
	if !os.SameFile(fi, opened) {
		return nil, refuse("shard %s: %s changed while it was opened: run the rollup again once nothing writes the shards",
			name, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxShardBytes+1))
	if err != nil {
		return nil, fmt.Errorf("rollup: shard %s: read %s: %w", name, path, err)
	}
	if len(b) > MaxShardBytes {
		return nil, refuse("shard %s: %s grew past %d MiB while it was read: run the rollup again once nothing writes the shards",
			name, path, MaxShardBytes>>20)
	}
	return b, nil
}

// regularUnderCap refuses anything but a regular file of at most
// MaxShardBytes, saying what to give instead.
func regularUnderCap(fi os.FileInfo, path, name string) error {
	if !fi.Mode().IsRegular() {
		return refuse("shard %s: %s is not a regular file (%s): give the file `finops report --format json` wrote, "+
			"not a pipe, device or folder", name, path, kindOf(fi.Mode()))
	}
	if fi.Size() > MaxShardBytes {
		return refuse("shard %s: %s is %d MiB, over the %d MiB a shard may be: a finops JSON summary is far smaller; "+
			"check that it is the file `finops report --format json` wrote (docs/ROLLUP.md)",
			name, path, fi.Size()>>20, MaxShardBytes>>20)
	}
	return nil
}

func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}
