package ingest

import (
	"fmt"
)

// CheckMemory refuses a reading whose memory used is above its memory
// total (both MiB; nil when the source gave none): the source is broken or
// the columns are swapped, and either figure would be wrong. The error names
// the used field; the caller adds file and line.
func CheckMemory(used, total *float64) error {
	if used != nil && total != nil && *used > *total {
		return fmt.Errorf("memory used %g MiB is above the memory total %g MiB: the reading is broken or the columns are swapped",
			*used, *total)
	}
	return nil
}
