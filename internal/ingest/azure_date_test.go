package ingest

import (
	"testing"
	"time"
)

// TestParseAzureDate: the date shapes of Azure exports, read without
// passing through an ISO string. Expectations are the calendar dates
// written by hand; a zone moves the instant by its offset.
func TestParseAzureDate(t *testing.T) {
	utc := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, time.UTC) }
	for _, c := range []struct {
		in   string
		want time.Time // zero: refused
	}{
		{"09/21/2023", utc(2023, 9, 21, 0, 0)},
		{" 9/1/2023 ", utc(2023, 9, 1, 0, 0)},
		{"21.09.2023", utc(2023, 9, 21, 0, 0)},
		{"21.09.2023 13:45", utc(2023, 9, 21, 13, 45)},
		{"09/21/2023 00:00:00", utc(2023, 9, 21, 0, 0)},
		{"09/21/2023   08:30:00 +02:00", utc(2023, 9, 21, 6, 30)},
		{"09/21/2023 00:00:00 Z", utc(2023, 9, 21, 0, 0)},
		{"2023-09-21", utc(2023, 9, 21, 0, 0)},
		{"2023-09-21 10:00:00", utc(2023, 9, 21, 10, 0)},
		{"02/29/2024", utc(2024, 2, 29, 0, 0)},
		{"02/29/2023", time.Time{}},           // no leap day
		{"13/01/2023", time.Time{}},           // month 13: not MM/DD
		{"00/10/2023", time.Time{}},           // month 0
		{"-1/10/2023", time.Time{}},           // a sign
		{"09/21/-202", time.Time{}},           // a negative year
		{"09/21/23", time.Time{}},             // a two-digit year
		{"09/21/2023 7", time.Time{}},         // an hour without minutes
		{"09/21/2023 10:00 XYZ", time.Time{}}, // an unknown zone
		{"09-21-2023", time.Time{}},
	} {
		got, err := parseAzureDate(c.in)
		switch {
		case c.want.IsZero() && err == nil:
			t.Errorf("parseAzureDate(%q) = %v, want an error", c.in, got)
		case !c.want.IsZero() && (err != nil || !got.Equal(c.want)):
			t.Errorf("parseAzureDate(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}
