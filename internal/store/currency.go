package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// LineSummary is what a report needs to know of its lines before it reads
// them: their currencies, checked against its exchange rates before anything
// is added up, and their extent.
type LineSummary struct {
	// Currencies lists each currency (upper case; "" for lines without one)
	// with the URIs of the files that carry lines in it, sorted.
	Currencies map[string][]string
	// First and Last are the earliest charge start and the latest charge end
	// (or start, where a line ends before it starts); Count is how many lines
	// there are.
	First, Last time.Time
	Count       int
}

// LineSummary summarises the billing lines that overlap [from, to) (the
// lines Lines returns) in one query.
func (s *Store) LineSummary(ctx context.Context, from, to time.Time) (LineSummary, error) {
	sum := LineSummary{Currencies: map[string][]string{}}
	o, err := s.overlap(ctx, from, to)
	if err != nil {
		return sum, fmt.Errorf("store: summarise billing lines: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, queryLineSummary, o.args()...)
	if err != nil {
		return sum, fmt.Errorf("store: summarise billing lines: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var cur, uri string
		var first, last int64
		var n int
		if err := rows.Scan(&cur, &uri, &first, &last, &n); err != nil {
			return sum, fmt.Errorf("store: summarise billing lines: %w", err)
		}
		cur = strings.TrimSpace(cur)
		sum.Currencies[cur] = append(sum.Currencies[cur], uri)
		f, l := time.Unix(first, 0).UTC(), time.Unix(last, 0).UTC()
		if sum.Count == 0 || f.Before(sum.First) {
			sum.First = f
		}
		if sum.Count == 0 || l.After(sum.Last) {
			sum.Last = l
		}
		sum.Count += n
	}
	if err := rows.Err(); err != nil {
		return sum, fmt.Errorf("store: summarise billing lines: %w", err)
	}
	return sum, nil
}

// queryLineSummary is LineSummary's query: the lines' range of the index on
// charge_start, as queryLines walks it, grouped by currency and file
// (TestQueryPlans).
var queryLineSummary = `SELECT upper(coalesce(b.currency, '')), f.uri,
		min(b.charge_start), max(max(b.charge_start, b.charge_end)), count(*)
		FROM billing_lines b JOIN source_files f ON f.id = b.source_id
		WHERE ` + overlapWhereB + `
		GROUP BY 1, 2 ORDER BY 1, 2`
