//go:build !linux

package store

// writebackFiles does nothing where sync_file_range does not exist: the
// commit's fsync writes everything, as it always did.
type writebackFiles struct{}

func newWritebackFiles([]string) *writebackFiles { return &writebackFiles{} }
func (*writebackFiles) start()                   {}
func (*writebackFiles) close()                   {}
