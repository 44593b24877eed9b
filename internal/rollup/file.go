package rollup

import (
	"context"
	"errors"

	"github.com/finops-oss/finops/internal/capped"
)

// MaxShardBytes bounds one shard file. A week of 10,000 GPUs writes a
// summary of tens of megabytes (its idle spans), and decoding one takes
// several times its size in memory: a file past 64 MiB is refused before
// it is read, not read whole.
const MaxShardBytes = 64 << 20

// readShardFile is the bytes of the shard file at path: a regular file (a
// link is followed) of at most MaxShardBytes, read by capped.ReadRegular. A
// FIFO, a device or a folder is refused from its stat, before it is
// opened, so that a FIFO no one writes to never blocks the rollup; the open
// is non-blocking and checked again, and the read is capped, so a path
// swapped or a file grown meanwhile is refused too.
func readShardFile(ctx context.Context, path, name string) ([]byte, error) {
	b, err := capped.ReadRegular(ctx, path, MaxShardBytes)
	var notRegular *capped.NotRegularError
	var tooLarge *capped.TooLargeError
	switch {
	case err == nil:
		return b, nil
	case errors.As(err, &notRegular):
		return nil, refuse("shard %s: %s is %s, not a regular file: give the file `finops report --format json` wrote",
			name, path, capped.FileType(notRegular.Mode))
	case errors.As(err, &tooLarge):
		size := "more than " + capped.Bytes(tooLarge.Limit) // grown while read
		if tooLarge.Size > tooLarge.Limit {
			size = capped.Bytes(tooLarge.Size)
		}
		return nil, refuse("shard %s: %s is %s, over the %s a shard may be: a finops JSON summary is far smaller; "+
			"check that it is the file `finops report --format json` wrote (docs/ROLLUP.md)",
			name, path, size, capped.Bytes(tooLarge.Limit))
	case ctx.Err() != nil:
		return nil, err
	}
	return nil, refuse("shard %s: %v: name an existing, readable `finops report --format json` summary", name, err)
}
