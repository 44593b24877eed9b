package publish

import (
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/sanitize"
)

// Alert is one message of the watch: an idle spell opened, reminded or
// closed, a grace warning, an action taken. Every text field may quote a
// bill (resource names, tags, team labels) and is treated as untrusted by
// each sender.
type Alert struct {
	Event    string // "idle", "reminder", "busy", "released", "grace", "action", "lifetime"; "digest" for a run's weekly digest
	Title    string // one line
	Text     string // plain text, a few lines
	Resource string
	Team     string
	Since    time.Time // start of the idle spell (zero when not applicable)
	Burnt    string    // money burnt so far, decimal text in Currency ("" when unknown)
	Currency string
}

// EventDigest is the event of a `finops run`'s weekly digest (deliver):
// sent through the same channels, escaped and cut as the alerts are.
const EventDigest = "digest"

// alertEvents are the values Alert.Event may take; the generic JSON schema
// documents them, so a receiver can switch on them.
func alertEvents() []string {
	return []string{"idle", "reminder", "busy", "released", "grace", "action", "lifetime", EventDigest}
}

// plain is an alert's text as every chat sender starts from: one title
// line, the body's lines and one line of facts (resource, team, since,
// burnt), with control characters replaced and mentions defused. The facts
// are kept apart so that a long body is cut before them.
type plain struct {
	title string
	body  string
	facts string
}

// factMaxRunes caps the resource and the team in the facts line; with the
// title's cap it leaves most of the smallest limit (Slack's 3000-character
// section, after escaping) to the text.
const factMaxRunes = 200

func plainText(a Alert) plain {
	title := sanitize.Control(strings.Join(strings.Fields(a.Title), " ")) // one line, even from a multi-line label
	if title == "" {
		title = "finops watch: " + a.Event
	}
	// The facts are sent whole, so each is capped: a resource ID from a bill
	// may be long (an Azure ID runs to ~200 characters), but not unbounded.
	var facts []string
	if a.Resource != "" {
		facts = append(facts, "resource "+sanitize.Truncate(a.Resource, factMaxRunes))
	}
	if a.Team != "" {
		facts = append(facts, "team "+sanitize.Truncate(a.Team, factMaxRunes))
	}
	if !a.Since.IsZero() {
		facts = append(facts, "since "+a.Since.Format("2006-01-02 15:04 MST"))
	}
	if a.Burnt != "" {
		facts = append(facts, "burnt so far "+strings.TrimSpace(a.Burnt+" "+a.Currency))
	}
	return plain{
		title: defuse(title),
		body:  defuse(strings.TrimRight(sanitize.Text(strings.ReplaceAll(a.Text, "\r\n", "\n")), "\n")),
		facts: defuse(sanitize.Control(strings.Join(facts, " · "))),
	}
}

// wordJoiner (U+2060) is invisible and joins nothing a reader sees, but a
// platform's parser no longer finds "@all", "<@U123>", "<at" or "<font"
// once it stands after the '@' or '<'.
const wordJoiner = "\u2060"

// defuse breaks the mention and tag syntax of every platform in untrusted
// text: "@all"/"@here" (WeCom, DingTalk, Slack's plain form), "<@userid>"
// (WeCom, Slack), "<at user_id=…>" (Feishu) and "<font …>" (WeCom markdown)
// all need '@' or '<' directly before a name. An address like a@b.com reads
// the same.
func defuse(s string) string {
	if !strings.ContainsAny(s, "@<") {
		return s
	}
	s = strings.ReplaceAll(s, "@", "@"+wordJoiner)
	return strings.ReplaceAll(s, "<", "<"+wordJoiner)
}

// fit cuts text (runes, "…" marking the cut) to the longest prefix whose
// rendering, measured by size, is at most max: the limits of the platforms
// are on what they receive (escaped markdown, a JSON body), not on the raw
// text. A binary search: size must grow with the text.
func fit(text string, max int, size func(string) int) string {
	if size(text) <= max {
		return text
	}
	n := len([]rune(text))
	lo, hi := 0, n // lo fits (a lone "…" or nothing), hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if size(sanitize.Truncate(text, mid)) <= max {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return ""
	}
	return sanitize.Truncate(text, lo)
}
