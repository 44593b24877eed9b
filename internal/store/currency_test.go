package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// LineSummary gives, in its one query, what Lines would return for the same
// range: the currencies by file, how many lines and
// their extent. The expectations are read off the lines below by hand.
func TestLineSummary(t *testing.T) {
	s := openTest(t)
	day := utc(2025, 3, 1, 0, 0, 0)
	h := func(n int) time.Time { return day.Add(time.Duration(n) * time.Hour) }
	l := func(cur string, start, end time.Time) *finops.BillingLine {
		x := usageLine(2, "r", start, end, "1")
		x.Currency = cur
		return x
	}
	sum := &ingest.Summary{Format: "focus", Kind: "billing"}
	mustImport(t, s, "a.csv", feed(sum, []*finops.BillingLine{
		l("USD", h(-2), h(1)), // began before the day, overlaps it
		l("cny", h(5), h(6)),
		l("USD", h(-3), h(-1)), // over before the day
	}, nil, nil))
	mustImport(t, s, "b.csv", feed(sum, []*finops.BillingLine{
		l("USD", h(20), h(30)), // runs past the day
		l("EUR", h(24), h(25)), // begins when the day ends
		l("USD", h(23), h(23)), // an instant inside the day
	}, nil, nil))
	for _, tc := range []struct {
		name        string
		from, to    time.Time
		count       int
		first, last time.Time
		currencies  string
	}{
		{"the day", h(0), h(24), 4, h(-2), h(30), "map[CNY:[a.csv] USD:[a.csv b.csv]]"},
		{"its first hours", h(0), h(6), 2, h(-2), h(6), "map[CNY:[a.csv] USD:[a.csv]]"},
		{"the instant alone", h(23), h(23).Add(time.Second), 2, h(20), h(30), "map[USD:[b.csv]]"},
		{"nothing", h(40), h(48), 0, time.Time{}, time.Time{}, "map[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.LineSummary(context.Background(), tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if got.Count != tc.count || !got.First.Equal(tc.first) || !got.Last.Equal(tc.last) || fmt.Sprint(got.Currencies) != tc.currencies {
				t.Errorf("LineSummary = %d lines %s to %s, %v; want %d lines %s to %s, %s", got.Count, got.First, got.Last,
					got.Currencies, tc.count, tc.first, tc.last, tc.currencies)
			}
			lines, err := s.Lines(context.Background(), tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != got.Count {
				t.Errorf("Lines returns %d lines, LineSummary counts %d", len(lines), got.Count)
			}
		})
	}
}
