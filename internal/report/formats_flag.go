package report

import (
	"fmt"
	"slices"
	"strings"
)

// ChooseFormats is what a report writes: the formats flag names
// (comma-separated, each one of Formats), else configured (the config's
// formats), else DefaultFormats. A name it does not know is refused.
func ChooseFormats(flag string, configured []string) ([]string, error) {
	if flag == "" {
		if len(configured) > 0 {
			return configured, nil
		}
		return DefaultFormats(), nil
	}
	var out []string
	for _, f := range strings.Split(flag, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(Formats(), f) {
			return nil, fmt.Errorf("--format %q: want some of %s", f, strings.Join(Formats(), ", "))
		}
		out = append(out, f)
	}
	return out, nil
}
