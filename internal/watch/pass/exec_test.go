package pass

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/testenv"
)

var at = time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)

// TestStillIdle: the re-check just before a command runs leaves alone a
// resource that got busy, went silent or is gone. "silent" was last seen
// 16 minutes before the pass, one past staleAfter's 15.
func TestStillIdle(t *testing.T) {
	obs := &observation{resources: []analysis.ResourceNow{
		{ID: "idle", LastSeen: at, IdleSince: at.Add(-time.Hour)},
		{ID: "busy", LastSeen: at},
		{ID: "silent", LastSeen: at.Add(-16 * time.Minute), IdleSince: at.Add(-time.Hour)},
	}}
	for id, want := range map[string]string{"idle": "", "busy": "its GPUs are busy again",
		"silent": "no fresh telemetry to confirm it is idle", "gone": "no longer billed or seen"} {
		r, got := stillIdle(obs, id, at)
		if got != want || (r != nil) != (want == "") || r != nil && r.ID != id {
			t.Errorf("%s: %v, %q, want %q", id, r, got, want)
		}
	}
}

// TestTailBuffer: the ledger keeps a command's last outputTail (4,096)
// bytes, whatever the sizes of the writes.
func TestTailBuffer(t *testing.T) {
	a, b := strings.Repeat("a", 3000), strings.Repeat("b", 3000)
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"short", []string{"ok\n"}, "ok\n"},
		// 6,000 bytes: the last 1,096 a's, then the 3,000 b's.
		{"two writes over the limit", []string{a, b}, a[:1096] + b},
		{"one write over the limit", []string{"x", a + b}, (a + b)[6000-4096:]},
		{"exactly the limit", []string{a, b[:1096]}, a + b[:1096]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tb tailBuffer
			for _, w := range tc.writes {
				if n, err := tb.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write: %d, %v; want %d, nil", n, err, len(w))
				}
			}
			if got := string(tb.bytes()); got != tc.want {
				t.Errorf("kept %d bytes, want %d: %.40q…", len(got), len(tc.want), got)
			}
		})
	}
}

// TestCommandEnv: a command gets finops's environment without the
// variables the config reads secrets from.
func TestCommandEnv(t *testing.T) {
	c := &config.Config{}
	c.Publish.SMTP.PasswordEnv = "SMTP_PASS"
	c.Publish.S3.SecretKeyEnv, c.Publish.S3.SessionTokenEnv = "S3_SECRET", "S3_TOKEN"
	c.Watch.Channels = []config.Channel{{Type: "slack", URLEnv: "SLACK_URL"}, {Type: "feishu", URLEnv: "FEISHU_URL", SecretEnv: "FEISHU_SECRET"}}
	c.Telemetry.Prometheus = []config.Prometheus{{URL: "http://p:9090", BearerTokenEnv: "PROM_TOKEN", BasicAuthPasswordEnv: "PROM_PASS"}}
	env := []string{"PATH=/usr/bin", "SMTP_PASS=x", "S3_SECRET=x", "S3_TOKEN=x", "SLACK_URL=https://hooks", "FEISHU_URL=x",
		"FEISHU_SECRET=x", "PROM_TOKEN=x", "PROM_PASS=x", "HOME=/home/finops", "=odd", "SLACK_URL_2=kept"}
	want := []string{"PATH=/usr/bin", "HOME=/home/finops", "=odd", "SLACK_URL_2=kept"}
	if got := commandEnv(c, env); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestExecAction: a command's outcome is its exit status, with its output
// (stdout and stderr in the order written) and the resource's fields in its
// environment.
func TestExecAction(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		testenv.Missing(t, "sh, a POSIX shell, for the commands run")
	}
	c := &config.Config{}
	for _, tc := range []struct {
		name         string
		script       string
		outcome, why string
		code         int
		output       string
	}{
		{"done", `echo "$FINOPS_ACTION $FINOPS_RESOURCE_ID $FINOPS_TEAM $FINOPS_IDLE_SINCE"`, store.ActionDone, "", 0,
			"stop gpu-a nlp 2026-11-30T01:00:00Z\n"},
		{"failed", "echo out; echo err >&2; exit 3", store.ActionFailed, "exit code 3", 3, "out\nerr\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &store.WatchAction{Action: "stop", Resource: "gpu-a", Team: "nlp", IdleSince: at.Add(-time.Hour),
				Argv: []string{sh, "-c", tc.script}}
			outcome, why, code, out := execAction(context.Background(), c, a, &analysis.ResourceNow{ID: "gpu-a"}, at)
			if outcome != tc.outcome || why != tc.why || code == nil || *code != tc.code || out != tc.output {
				t.Errorf("%s (%s), code %s, output %q; want %s (%s), %d, %q", outcome, why, fmtCode(code), out,
					tc.outcome, tc.why, tc.code, tc.output)
			}
		})
	}
}

func fmtCode(c *int) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprint(*c)
}
