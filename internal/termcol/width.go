// Package termcol lays out text in columns for a terminal by display width:
// a Chinese or Japanese character takes two columns, a combining mark none.
// text/tabwriter counts runes, so a table with Chinese names misaligns.
package termcol

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// condition fixes ambiguous-width characters (…, ·, ×) as narrow, as
// modern terminals draw them, whatever the locale: runewidth's default
// reads LANG, and the same report must lay out the same under cron.
func condition() *runewidth.Condition {
	return &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}
}

// Width is the number of terminal columns s takes. SGR colour sequences
// (ESC [ … m) take none.
func Width(s string) int {
	return condition().StringWidth(stripSGR(s))
}

// Truncate cuts s to at most max columns, the last one "…" when it cut
// (max ≤ 0: no limit). It never splits a wide character or a grapheme.
func Truncate(s string, max int) string {
	c := condition()
	if max <= 0 || c.StringWidth(s) <= max {
		return s
	}
	return c.Truncate(s, max, "…")
}

// stripSGR drops ESC [ params m sequences, the only escapes finops writes
// itself (sanitize replaces every other control character before).
func stripSGR(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			s = s[i:]
			break
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}
