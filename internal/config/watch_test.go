package config

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/watch"
)

// watchBase is a config the cases add a watch section to: line 1 is
// "teams:", so a case's first line is line 7.
const watchBase = `teams:
  - name: nlp
    leads: [lead@example.com]
    quiet_hours: "22:00-08:00"
resources:
  - id: gpu-a
`

// TestWatchConfigRefused: each bad watch setting is refused at load with
// its key and its line (counted by hand from watchBase's six lines).
func TestWatchConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown action", "watch:\n  on_idle:\n    after: 2h\n    action: reboot\n    command: [/bin/stop]\n",
			[]string{`line 10: watch.on_idle.action: "reboot" is not an action; want stop or release`}},
		{"command as one shell string", "watch:\n  on_idle:\n    after: 2h\n    action: stop\n    command: \"aws ec2 stop-instances --instance-ids i-1\"\n",
			[]string{"line 11: watch.on_idle.command:", "give the command as a list of arguments"}},
		// A placeholder inside an argument is refused (TestWatchCommandBypassesRefused
		// has the rest); "$(id)" or backticks of the operator's own are not:
		// finops runs no shell, and [sh, -c, '… "$FINOPS_RESOURCE_ID"'] is
		// how a command is meant to read the bill's values.
		{"a placeholder inside an argument", "watch:\n  on_idle:\n    after: 2h\n    action: stop\n    command:\n      - /bin/stop\n      - \"{resource_id}; rm -rf /\"\n",
			[]string{"line 13: watch.on_idle.command[1]:", "inside an argument", `use "$FINOPS_RESOURCE_ID" through env`}},
		{"a program with spaces", "watch:\n  on_idle:\n    after: 2h\n    action: stop\n    command: [\"aws ec2\", stop]\n",
			[]string{"watch.on_idle.command[0]:", "give each argument as its own list item"}},
		{"unknown placeholder", "watch:\n  on_idle:\n    after: 2h\n    action: stop\n    command: [/bin/stop, \"{hostname}\"]\n",
			[]string{"watch.on_idle.command[1]: unknown placeholder {hostname}"}},
		{"no after", "watch:\n  on_idle:\n    action: stop\n    command: [/bin/stop]\n",
			[]string{"line 8: watch.on_idle.after: required"}},
		{"allowlist naming an unknown resource", "watch:\n  allow:\n    resources: [gpu-z]\n",
			[]string{`line 9: watch.allow.resources[0]: "gpu-z" is not a resource under resources`}},
		{"allowlist naming an unknown team", "watch:\n  allow:\n    teams: [cv]\n",
			[]string{`line 9: watch.allow.teams[0]: "cv" is not a team under teams`}},
		{"a webhook URL in the YAML", "watch:\n  channels:\n    - type: slack\n      url: https://hooks.slack.com/services/T/B/x\n",
			[]string{"line 10: unknown key watch.channels[0].url"}},
		{"a webhook without url_env or url_file", "watch:\n  channels:\n    - type: feishu\n",
			[]string{"line 9: watch.channels[0]: give exactly one of url_env and url_file"}},
		{"a wecom channel with secret_env", "watch:\n  channels:\n    - type: wecom\n      url_env: WECOM_URL\n      secret_env: WECOM_SECRET\n",
			[]string{"line 11: watch.channels[0].secret_env: wecom bots are not signed", "remove secret_env"}},
		{"a slack channel with secret_file", "watch:\n  channels:\n    - type: slack\n      url_env: SLACK_URL\n      secret_file: /etc/finops/slack-secret\n",
			[]string{"line 11: watch.channels[0].secret_file: slack bots are not signed"}},
		{"unknown channel type", "watch:\n  channels:\n    - type: pager\n      url_env: X\n",
			[]string{`line 9: watch.channels[0].type: "pager" is not a channel type`}},
		{"max_lifetime of an unknown mode", "watch:\n  max_lifetime:\n    hourlyy: 72h\n",
			[]string{`line 9: watch.max_lifetime.hourlyy: "hourlyy" is not a pricing mode`}},
		{"alert_after beyond lookback", "watch:\n  lookback: 1h\n  alert_after: 2h\n",
			[]string{"line 9: watch.alert_after: 2h is longer than watch.lookback (1h)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseWatch("finops.yaml", []byte(watchBase+tc.yaml))
			if err == nil {
				t.Fatalf("accepted; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	bad := strings.Replace(watchBase, `"22:00-08:00"`, `"22h-8h"`, 1)
	if _, err := parseWatch("finops.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "line 4: teams[0].quiet_hours:") {
		t.Errorf("bad quiet_hours: %v", err)
	}
}

// TestWatchConfigAccepted: a full watch section loads, with its defaults.
func TestWatchConfigAccepted(t *testing.T) {
	c, err := parseWatch("finops.yaml", []byte(watchBase+`    protect: true
    max_lifetime: 72h
    on_idle:
      after: 3h
      action: release
      command: [/usr/local/bin/release, --team, "{team}"]
watch:
  act: true
  allow:
    teams: [nlp]
  channels:
    - type: email
    - type: dingtalk
      url_file: /run/secrets/dingtalk
      secret_env: DINGTALK_SECRET
      teams: [nlp]
`))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Watch.Settings()
	if s.Lookback != 2*time.Hour || s.AlertAfter != 30*time.Minute || s.RemindEvery != 4*time.Hour || s.Grace != 15*time.Minute || s.MaxActions != 1 {
		t.Errorf("defaults: %+v", s)
	}
	r := c.Resources[0]
	if !r.Protect || r.MaxLifetime.Duration != 72*time.Hour || r.OnIdle.Command.Args[2] != "{team}" {
		t.Errorf("resource: %+v", r)
	}
}

// TestQuietHours: a span across midnight in the config's zone.
func TestQuietHours(t *testing.T) {
	q, err := ParseQuietHours("22:00-08:00")
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := time.LoadLocation("Asia/Shanghai")
	for _, tc := range []struct {
		utc  string
		want bool
	}{
		{"2026-11-30T13:59:00Z", false}, // 21:59 in Shanghai
		{"2026-11-30T14:00:00Z", true},  // 22:00
		{"2026-11-30T23:59:00Z", true},  // 07:59
		{"2026-12-01T00:00:00Z", false}, // 08:00
	} {
		at, _ := time.Parse(time.RFC3339, tc.utc)
		if got := q.Contains(at, sh); got != tc.want {
			t.Errorf("%s: quiet %v, want %v", tc.utc, got, tc.want)
		}
	}
}

// parseWatch parses as the CLI does with the watch's command check, which
// takes the watch's placeholders (watch.CheckCommand).
func parseWatch(name string, b []byte) (*Config, error) {
	return Parse(name, b, CommandCheck(watch.CheckCommand))
}
