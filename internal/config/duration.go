package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration that also accepts days and weeks ("28d", "2w"),
// as users write lookbacks. It remembers whether the key was given, so an
// explicit "0d" is refused rather than read as "the default".
type Duration struct {
	time.Duration
	set bool
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	d.Duration, d.set = v, true
	return nil
}

// FormatDuration writes d as ParseDuration reads it, whole days as days
// (7d, 36h, 90m): for messages that echo a duration back to the user.
func FormatDuration(d time.Duration) string { return fmtDuration(d) }

// ParseDuration parses Go durations plus a whole-number "Nd" or "Nw" form.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		k, err := strconv.Atoi(s[:n-1])
		if err != nil || k < 0 {
			return 0, fmt.Errorf("duration %q: want e.g. 30d, 2w, 36h or 30m", s)
		}
		unit := 24 * time.Hour
		if s[n-1] == 'w' {
			unit *= 7
		}
		if k > int(math.MaxInt64/int64(unit)) {
			return 0, fmt.Errorf("duration %q: longer than Go can count (about 290 years)", s)
		}
		return time.Duration(k) * unit, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("duration %q: want e.g. 30d, 2w, 36h or 30m", s)
	}
	return d, nil
}

func parsePositive(s string) (decimal.Decimal, error) {
	d, err := decimal.NewFromString(strings.TrimSpace(s))
	if err != nil || !d.IsPositive() {
		return decimal.Zero, fmt.Errorf("%q is not a positive number", s)
	}
	return d, nil
}
