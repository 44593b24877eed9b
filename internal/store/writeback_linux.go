package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// writebackWorks: sync_file_range exists here.
const writebackWorks = true

// writebackFiles are the files whose dirty pages start is written out,
// each opened read-only when it first exists (the WAL appears with the
// first write).
type writebackFiles struct {
	names []string
	open  []*os.File
}

func newWritebackFiles(names []string) *writebackFiles {
	return &writebackFiles{names: names, open: make([]*os.File, len(names))}
}

// start asks the kernel to begin writing each file's dirty pages, without
// waiting for them (SYNC_FILE_RANGE_WRITE): the fsync that makes them
// durable is still SQLite's. A file that cannot be opened or synced is
// left to that fsync.
func (w *writebackFiles) start() {
	for i, name := range w.names {
		if w.open[i] == nil {
			f, err := os.Open(name)
			if err != nil {
				continue
			}
			w.open[i] = f
		}
		_ = unix.SyncFileRange(int(w.open[i].Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
	}
}

func (w *writebackFiles) close() {
	for _, f := range w.open {
		if f != nil {
			f.Close()
		}
	}
}
