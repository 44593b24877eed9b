package config

import (
	"strings"
	"testing"
)

// TestWatchCommandShellRefused: the brief's case, [/bin/sh, -c, "echo
// stopping {resource_id}"], is refused at load, naming the key, its line and
// the way out (the value in the environment). It was refused by the
// interpreter list; now by the rule that no placeholder stands inside an
// argument, whatever the program.
func TestWatchCommandShellRefused(t *testing.T) {
	yaml := watchBase + "watch:\n  on_idle:\n    after: 2h\n    action: stop\n    command: [/bin/sh, -c, \"echo stopping {resource_id}\"]\n"
	_, err := parseWatch("finops.yaml", []byte(yaml))
	if err == nil {
		t.Fatal("accepted [/bin/sh, -c, \"echo stopping {resource_id}\"]")
	}
	for _, want := range []string{"line 11: watch.on_idle.command[2]:", "inside an argument",
		`use "$FINOPS_RESOURCE_ID" through env: [sh, -c, 'runpodctl stop pod "$FINOPS_RESOURCE_ID"']`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// The same under a team's and a resource's on_idle.
	for _, y := range []string{
		"teams:\n  - name: nlp\n    on_idle: {after: 2h, action: stop, command: [bash, -lc, \"stop {team}\"]}\n",
		"resources:\n  - id: gpu-a\n    on_idle: {after: 2h, action: stop, command: [python3, -c, \"print('{short_id}')\"]}\n",
	} {
		if _, err := parseWatch("finops.yaml", []byte(y)); err == nil || !strings.Contains(err.Error(), "on_idle.command[2]") {
			t.Errorf("%s: err = %v, want on_idle.command[2] refused", y, err)
		}
	}
}

// TestWatchPassTimeout: watch.pass_timeout defaults to 60 s and is refused
// outside [1s, 4m] (a pass runs every 5 minutes; the units end it at 240 s).
func TestWatchPassTimeout(t *testing.T) {
	if got := (Watch{}).Settings().PassTimeout; got != DefaultPassTimeout || got.Seconds() != 60 {
		t.Errorf("default %s, want 60s", got)
	}
	c, err := parseWatch("finops.yaml", []byte(watchBase+"watch:\n  pass_timeout: 90s\n"))
	if err != nil || c.Watch.Settings().PassTimeout.Seconds() != 90 {
		t.Fatalf("90s: %v", err)
	}
	for _, v := range []string{"5m", "500ms"} {
		_, err := parseWatch("finops.yaml", []byte(watchBase+"watch:\n  pass_timeout: "+v+"\n"))
		if err == nil || !strings.Contains(err.Error(), "line 8: watch.pass_timeout:") || !strings.Contains(err.Error(), "is not between 1s and 4m") {
			t.Errorf("%s: err = %v", v, err)
		}
	}
}
