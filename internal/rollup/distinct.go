package rollup

import (
	"encoding/hex"
)

// checkDistinct refuses a shard given twice: two files of the same bytes
// (one summary under two --name flags, through a link or a copy), or two
// summaries of the same database and period (source.database_id: the
// fleet's and a team's, or one reported again after an ingest). Summed,
// its charges would count twice.
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
	type dbPeriod struct {
		id         string
		start, end int64
	}
	fromDB := map[dbPeriod]int{}
	for i, s := range shards {
		if s.DatabaseID == "" {
			continue
		}
		k := dbPeriod{s.DatabaseID, s.Result.Period.Start.UnixNano(), s.Result.Period.End.UnixNano()}
		if j, ok := fromDB[k]; ok {
			f := shards[j]
			return refuse("shards %s (%s) and %s (%s) were both reported from database %s for %s: a shard counts once; "+
				"give one summary per database, the latest (a team's summary is part of its fleet's; two databases copied "+
				"from one file share an id: docs/ROLLUP.md)",
				f.Name, f.Path, s.Name, s.Path, s.DatabaseID, s.Result.Period.Label)
		}
		fromDB[k] = i
	}
	return nil
}
