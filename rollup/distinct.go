package rollup

import (
	"encoding/hex"
)

// checkDistinct refuses a shard given twice: two files of the same bytes
// (one summary under two --name flags, through a link or a copy). Summed,
// it would count twice.
func checkDistinct(shards []Shard) error {
	var zero [32]byte
	seen := map[[32]byte]int{}
	for i, s := range shards {
		if s.SHA256 == zero { // built in memory, not read from a file
			continue
		}
		if j, ok := seen[s.SHA256]; ok {
			f := shards[j]
			return refuse("shards %s (%s) and %s (%s) are the same summary (sha256 %s…): a shard counts once; "+
				"give each shard's file once", f.Name, f.Path, s.Name, s.Path, hex.EncodeToString(s.SHA256[:6]))
		}
		seen[s.SHA256] = i
	}
	return nil
}
