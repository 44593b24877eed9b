package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// A line overlaps [from, to) when it starts before to and ends after from; a
// zero-length line (an instant) when from <= start < to. The index on
// charge_start bounds the scan only from above, so a report over last week
// would read a year of older lines to reject them. overlap first finds the
// earliest start among the lines that end at or after from (the index on
// charge_end: only recent lines), which no overlapping line starts before,
// and the query scans charge_start from there: a report's cost follows the
// lines of its range, not the history kept.
const overlapWhere = `charge_start >= ? AND charge_start < ? AND (charge_end > ? OR (charge_end = charge_start AND charge_start >= ?))`

// overlapWhereB is overlapWhere for a query that names the table b.
var overlapWhereB = strings.NewReplacer("charge_start", "b.charge_start", "charge_end", "b.charge_end").Replace(overlapWhere)

const queryLineStartBound = `SELECT min(charge_start) FROM billing_lines INDEXED BY billing_lines_end WHERE charge_end >= ?`

// lineOverlap holds the arguments of overlapWhere.
type lineOverlap struct{ lo, from, to int64 }

func (o lineOverlap) args() []any { return []any{o.lo, o.to, o.from, o.from} }

func (s *Store) overlap(ctx context.Context, from, to time.Time) (lineOverlap, error) {
	o := lineOverlap{from: from.Unix(), to: to.Unix()}
	// INDEXED BY: without it SQLite may answer min() by walking charge_start
	// from the oldest line until one ends late enough, the scan this avoids.
	var lo sql.NullInt64
	if err := s.db.QueryRowContext(ctx, queryLineStartBound, o.from).Scan(&lo); err != nil {
		return o, err
	}
	o.lo = o.to // no line ends after from: nothing overlaps
	if lo.Valid {
		o.lo = lo.Int64
	}
	return o, nil
}
