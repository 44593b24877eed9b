//go:build !linux

package store

// writebackWorks: no sync_file_range here, so an import starts no
// writeback goroutine; the commit's fsync writes everything, as it always
// did.
const writebackWorks = false

// writebackFiles does nothing where sync_file_range does not exist (never
// started: writebackWorks).
type writebackFiles struct{}

func newWritebackFiles([]string) *writebackFiles { return &writebackFiles{} }
func (*writebackFiles) start()                   {}
func (*writebackFiles) close()                   {}
