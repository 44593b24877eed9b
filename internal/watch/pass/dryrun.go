package pass

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/store"
)

// printDryRun says what a dry run would send, and to whom, instead of
// sending it (docs/WATCH.md §Dry run sends nothing): for each of this pass's messages the
// channels that take its team ("slack#0", an email channel with its
// addresses), then its text; then the messages earlier passes left pending.
// It reaches no channel, builds no sender and reads no secret: a dry run
// makes no request outside the process. Titles and texts come from bills
// (resource ids, teams): made printable here, as they are for every line a
// pass prints.
func printDryRun(out io.Writer, c *config.Config, now time.Time, events []store.WatchEvent, left []store.WatchMessage) {
	n := 0
	for _, e := range events {
		if len(e.Channels) == 0 {
			fmt.Fprintf(out, "dry run: would send nowhere (no channel in watch.channels takes team %q): %q\n",
				sanitize.Control(e.Team), sanitize.Control(e.Title))
			continue
		}
		for _, ch := range e.Channels {
			n++
			fmt.Fprintf(out, "dry run: would send to %s%s: %q\n", recipient(c, ch, e.Team), heldNote(c, e.Team, now),
				sanitize.Control(e.Title))
		}
		for _, line := range strings.Split(strings.TrimRight(e.Body, "\n"), "\n") {
			fmt.Fprintf(out, "dry run:   %s\n", sanitize.Control(line))
		}
	}
	for _, m := range left {
		n++
		fmt.Fprintf(out, "dry run: would send to %s%s (left over from the pass at %s): %q\n", recipient(c, m.Channel, m.Team),
			heldNote(c, m.Team, now), m.At.UTC().Format(time.RFC3339), sanitize.Control(m.Title))
	}
	fmt.Fprintf(out, "dry run: %d message(s) not sent, no command run, nothing recorded but the telemetry read "+
		"(--dry-run --send-alerts sends the alerts and skips only the commands)\n", n)
}

// recipient names a channel as a dry run prints it: its name ("slack#0":
// type and index in watch.channels), and for email the addresses a message
// of team would go to. Never its URL, which may hold a token.
func recipient(c *config.Config, channel, team string) string {
	typ, _, _ := strings.Cut(channel, "#")
	if typ != "email" {
		return channel
	}
	return channel + " (" + sanitize.Control(strings.Join(leadsOf(c, team), ", ")) + ")"
}

// heldNote says a message would wait for its team's quiet hours.
func heldNote(c *config.Config, team string, now time.Time) string {
	if quiet(c, team, now) {
		return fmt.Sprintf(" after team %q's quiet hours", sanitize.Control(team))
	}
	return ""
}
