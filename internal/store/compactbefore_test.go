package store

import (
	"testing"
	"time"
)

// TestCompactBefore: hot_days back from now, in UTC; 0 keeps the default
// three days.
func TestCompactBefore(t *testing.T) {
	now := time.Date(2026, 11, 30, 11, 0, 0, 0, time.FixedZone("CST", 8*3600)) // 03:00 UTC
	for _, tc := range []struct {
		hot  int
		want time.Time
	}{
		{0, time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)},
		{7, time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)},
	} {
		if got := CompactBefore(now, tc.hot); !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Errorf("hot_days %d: %v, want %v", tc.hot, got, tc.want)
		}
	}
}
