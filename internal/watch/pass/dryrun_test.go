package pass

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/store"
)

// TestPrintDryRunGenerated: over random messages with hostile bill text
// (escape sequences, carriage returns, quotes, newlines in titles and
// teams), a dry run's listing names every (message, channel) pair exactly
// once, with an email channel's addresses (the team's leads, else
// publish.smtp.admins) and never a webhook's URL; a message no channel
// takes is said to go nowhere; the messages left pending are listed as
// such; the count line agrees; and no control character but the newlines
// reaches the terminal. The expectations are counted from the generated
// input.
func TestPrintDryRunGenerated(t *testing.T) {
	c := &config.Config{}
	c.Watch.Channels = []config.Channel{{Type: "slack", URLEnv: "SLACK_URL"}, {Type: "email"}, {Type: "json", URLEnv: "HOOK_URL"}}
	c.Teams = []config.Team{{Name: "nlp", Leads: []string{"lead@nlp.example"}}, {Name: "cv"}}
	c.Publish.SMTP.Admins = []string{"admin@example.com"}
	leads := map[string]string{"nlp": "lead@nlp.example", "cv": "admin@example.com", "x\x1b]0;pwn\x07": "admin@example.com"}
	teams := []string{"nlp", "cv", "x\x1b]0;pwn\x07"}
	channels := []string{"slack#0", "email#1", "json#2"}
	hostile := []string{"", "\x1b[2J", "\r", "\"", "\x07", "\u009b31m", "\n"}
	text := func(rng *rand.Rand) string {
		var b strings.Builder
		for range 1 + rng.Intn(4) {
			b.WriteString(fmt.Sprintf("gpu-%d", rng.Intn(100)))
			b.WriteString(hostile[rng.Intn(len(hostile))])
		}
		return b.String()
	}
	rng := rand.New(rand.NewSource(33))
	now := time.Date(2026, 11, 30, 1, 31, 0, 0, time.UTC)
	for n := 0; n < 300; n++ {
		var events []store.WatchEvent
		var left []store.WatchMessage
		pairs, nowhere, email := 0, 0, map[string]int{}
		for range rng.Intn(5) {
			e := store.WatchEvent{Team: teams[rng.Intn(len(teams))], Title: text(rng), Body: text(rng) + "\n" + text(rng)}
			for _, ch := range channels {
				if rng.Intn(2) == 0 {
					e.Channels = append(e.Channels, ch)
					if ch == "email#1" {
						email[leads[e.Team]]++
					}
				}
			}
			pairs += len(e.Channels)
			if len(e.Channels) == 0 {
				nowhere++
			}
			events = append(events, e)
		}
		for range rng.Intn(3) {
			m := store.WatchMessage{Channel: channels[rng.Intn(len(channels))], Team: teams[rng.Intn(len(teams))],
				Title: text(rng), At: now.Add(-time.Hour)}
			if m.Channel == "email#1" {
				email[leads[m.Team]]++
			}
			left = append(left, m)
		}
		var out bytes.Buffer
		printDryRun(&out, c, now, events, left)
		got := out.String()
		if strings.ContainsAny(got, "\x1b\r\x07\u009b") {
			t.Fatalf("case %d: a control character reaches the terminal:\n%q", n, got)
		}
		if k := strings.Count(got, "dry run: would send to "); k != pairs+len(left) {
			t.Errorf("case %d: %d messages listed, want %d pairs + %d left over:\n%s", n, k, pairs, len(left), got)
		}
		if k := strings.Count(got, "(left over from the pass at 2026-11-30T00:31:00Z)"); k != len(left) {
			t.Errorf("case %d: %d left-over messages, want %d:\n%s", n, k, len(left), got)
		}
		if k := strings.Count(got, "dry run: would send nowhere"); k != nowhere {
			t.Errorf("case %d: %d messages said to go nowhere, want %d:\n%s", n, k, nowhere, got)
		}
		for addr, k := range email {
			if g := strings.Count(got, "would send to email#1 ("+addr+")"); g != k {
				t.Errorf("case %d: %d emails to %s, want %d:\n%s", n, g, addr, k, got)
			}
		}
		if want := fmt.Sprintf("dry run: %d message(s) not sent", pairs+len(left)); !strings.Contains(got, want) {
			t.Errorf("case %d: no %q:\n%s", n, want, got)
		}
		if strings.Contains(got, "SLACK_URL") || strings.Contains(got, "HOOK_URL") {
			t.Errorf("case %d: a channel's address source is printed:\n%s", n, got)
		}
	}
}
