package ingest

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	sh := time.FixedZone("", 8*3600)
	ms := time.Millisecond
	cases := []struct {
		in   string
		loc  *time.Location
		want time.Time
	}{
		{"2024-09-18 22:00:00", time.UTC, time.Date(2024, 9, 18, 22, 0, 0, 0, time.UTC)},
		{"2024-09-18T22:00:00Z", sh, time.Date(2024, 9, 18, 22, 0, 0, 0, time.UTC)},
		{"2024-09-18T22:00:00.123Z", nil, time.Date(2024, 9, 18, 22, 0, 0, 0, time.UTC).Add(123 * ms)},
		{"2024-09-18T22:00:00.123456789Z", nil, time.Date(2024, 9, 18, 22, 0, 0, 123456789, time.UTC)},
		{"2024-09-18T22:00:00+08:00", time.UTC, time.Date(2024, 9, 18, 14, 0, 0, 0, time.UTC)},
		{"2024-09-18T22:00:00-0530", time.UTC, time.Date(2024, 9, 19, 3, 30, 0, 0, time.UTC)},
		{"2024-09-18 22:00:00 +08", time.UTC, time.Date(2024, 9, 18, 14, 0, 0, 0, time.UTC)},
		{"2024-09-18 22:00:00 UTC", sh, time.Date(2024, 9, 18, 22, 0, 0, 0, time.UTC)},
		{"2026/07/14 08:12:53.353", sh, time.Date(2026, 7, 14, 0, 12, 53, 353e6, time.UTC)},
		{"2026/07/14 08:12:53", sh, time.Date(2026, 7, 14, 0, 12, 53, 0, time.UTC)},
		{"2026-11-02 09:00", sh, time.Date(2026, 11, 2, 1, 0, 0, 0, time.UTC)},
		{"2026-11-02", sh, time.Date(2026, 11, 1, 16, 0, 0, 0, time.UTC)},
		{"2026-1-2 9:05", time.UTC, time.Date(2026, 1, 2, 9, 5, 0, 0, time.UTC)},
		{"2024-02-29 00:00:00", time.UTC, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		got, err := parseTime(c.in, c.loc)
		if err != nil || !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "NULL", "2024-09-18X22:00", "2024-13-01", "2023-02-29", "2024-09-31",
		"2023-02-01T30:00:00Z", "2024-09-18 22:60", "2024-09-18 22:00:00 PST", "2024-09-18T22:00:00+25:00",
		"2024-09-18T22:00:00.Z", "18/09/2024", "2024-09/18", "1726696800", "2024-09-18 22:00:00 garbage"} {
		if got, err := parseTime(bad, time.UTC); err == nil {
			t.Errorf("parseTime(%q) = %v, want an error", bad, got)
		}
	}
}
