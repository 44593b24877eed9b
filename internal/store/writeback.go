package store

import "time"

// writebackEvery is how often an import asks the kernel to start writing
// out what it wrote to the WAL so far.
const writebackEvery = 50 * time.Millisecond

// startWriteback has the kernel write the database's WAL and main file to
// disk while an import runs, and returns the function that stops it.
//
// SQLite writes a transaction's pages to the WAL as its cache spills and
// leaves them in the page cache; the checkpoint at the commit first waits
// for all of them to reach the disk (fsync), then copies them into the
// database file and waits again. A 200,000-line FOCUS import left 74 MB for
// that first fsync: 0.09 s of its 0.26 s commit, on the import's critical
// path. Started early, the writing overlaps the parse and the commit's
// fsync waits only for the last pages (PostgreSQL's *_flush_after settings
// do the same with the same call). It only starts writes the kernel would
// do anyway: what is stored, and when SQLite considers it durable, do not
// change; the files it opened are closed when the import ends
// (TestWritebackClosesItsFiles).
func startWriteback(path string) (stop func()) {
	if !writebackWorks {
		return func() {}
	}
	files := []string{path + "-wal", path}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		w := newWritebackFiles(files)
		defer w.close()
		t := time.NewTicker(writebackEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				w.start()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
