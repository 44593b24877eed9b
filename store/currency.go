package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// CurrenciesBySource lists the currencies of the billing lines that overlap
// [from, to) (the lines Lines returns), each with the URIs of the files that
// carry lines in it, sorted. Lines without a currency are listed under "".
// A report checks it against its exchange rates before it adds anything up.
func (s *Store) CurrenciesBySource(ctx context.Context, from, to time.Time) (map[string][]string, error) {
	o, err := s.overlap(ctx, from, to)
	if err != nil {
		return nil, fmt.Errorf("store: currencies: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT upper(coalesce(b.currency, '')), f.uri
		FROM billing_lines b JOIN source_files f ON f.id = b.source_id
		WHERE `+overlapWhereB+`
		ORDER BY 1, 2`, o.args()...)
	if err != nil {
		return nil, fmt.Errorf("store: currencies: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var cur, uri string
		if err := rows.Scan(&cur, &uri); err != nil {
			return nil, fmt.Errorf("store: currencies: %w", err)
		}
		out[strings.TrimSpace(cur)] = append(out[strings.TrimSpace(cur)], uri)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: currencies: %w", err)
	}
	return out, nil
}
