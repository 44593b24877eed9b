package sanitize

import "strings"

// Redact removes secrets (4 characters or more; shorter ones would cut
// ordinary words) from s, and the passwords and credential parameters of
// every URL in it (URLs): whatever a library or a config puts in a
// message, it reaches no output, report or ledger row.
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return URLs(s)
}
