package spelling

import "testing"

func TestNearest(t *testing.T) {
	known := []string{"timezone", "currency", "thresholds", "idle_utilization", "bucket"}
	for _, tc := range []struct{ got, want string }{
		{"timezon", "timezone"},                  // one deletion
		{"curency", "currency"},                  // one deletion
		{"treshold", "thresholds"},               // two deletions
		{"idle_utilisation", "idle_utilization"}, // one substitution
		{"bukket", "bucket"},                     // one substitution
		{"colour", ""},                           // nothing within two edits
		{"", ""},
	} {
		if got := Nearest(tc.got, known); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.got, got, tc.want)
		}
	}
}
