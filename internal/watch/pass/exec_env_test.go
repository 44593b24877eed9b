package pass

import (
	"context"
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/testenv"
	"github.com/finops-oss/finops/internal/watch"
)

// hostileValue is a random value a bill could hold: shell syntax, command
// substitutions that would create mark, a bare "reboot", newlines, quotes,
// options, C1 and line-separator characters, non-ASCII text — valid UTF-8
// without NUL (an environment cannot carry NUL; see TestExecActionNUL).
func hostileValue(rng *rand.Rand, mark string) string {
	pieces := []string{";", "|", "&&", "$(touch " + mark + ")", "`touch " + mark + "`", "\n", "\r\n", "reboot", "'", "\"", "\\",
		" ", "\t", "-rf", "--help", "*", "~", "$HOME", "${IFS}", "训练机", "\u2028", "\u009b", "#", "\x1b[31m", "gpu-a", "{resource_id}",
		"';touch " + mark + ";'", "\";touch " + mark + ";\"", "%s", "%n"}
	var b strings.Builder
	for n := rng.Intn(6); n >= 0; n-- {
		if rng.Intn(3) == 0 {
			for k := rng.Intn(8); k >= 0; k-- {
				b.WriteByte(byte(0x21 + rng.Intn(0x7e-0x21)))
			}
			continue
		}
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}

// TestExecActionHostileThroughEnv is the invariant's run-time half with
// generated inputs: for 200 random hostile ids and teams, a real sh script
// that writes "$FINOPS_RESOURCE_ID", "$FINOPS_TEAM" and its stdin to files
// receives each value byte for byte, the JSON on its stdin decodes to the
// same values (and the hand-computed idle cost: ¥6 an hour for 90 minutes
// is ¥9), and nothing in a value is executed: no mark file appears, though
// "$(touch mark)" and a "reboot" that would create it on PATH are in them.
func TestExecActionHostileThroughEnv(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		testenv.Missing(t, "sh, a POSIX shell, for the commands run")
	}
	dir := t.TempDir()
	mark := filepath.Join(dir, "PWNED")
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "reboot"), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := filepath.Join(dir, "out")
	argv := []string{sh, "-c", `printf %s "$FINOPS_RESOURCE_ID" > "$0.id"; printf %s "$FINOPS_TEAM" > "$0.team"; ` +
		`printf %s "$FINOPS_SHORT_ID" > "$0.short"; cat > "$0.json"`, out}
	rng := rand.New(rand.NewSource(32))
	c := &config.Config{}
	for i := 0; i < 200; i++ {
		id, team := hostileValue(rng, mark), hostileValue(rng, mark)
		if i == 0 {
			id = "reboot"
		}
		a := &store.WatchAction{Action: "stop", Resource: id, Team: team, IdleSince: at.Add(-90 * time.Minute),
			DecidedAt: at.Add(-time.Minute), Rate: 6, RateKnown: true, Currency: "CNY", Argv: argv}
		outcome, why, _, output := execAction(context.Background(), c, a, &analysis.ResourceNow{ID: id, Team: "tag-team", GPUs: 2}, at)
		if outcome != store.ActionDone {
			t.Fatalf("%q: %s (%s) %q", id, outcome, why, output)
		}
		if _, err := os.Stat(mark); err == nil {
			t.Fatalf("%q / %q: the mark file exists: a value was executed", id, team)
		}
		// The short id is computed here by hand: the text after the last
		// "/" of a path-like id (arn:, projects/, //, /subscriptions/).
		short := id
		if strings.HasPrefix(id, "arn:") || strings.HasPrefix(id, "projects/") || strings.HasPrefix(id, "//") {
			if k := strings.LastIndexByte(strings.TrimRight(id, "/"), '/'); k >= 0 && k < len(strings.TrimRight(id, "/"))-1 {
				short = strings.TrimRight(id, "/")[k+1:]
			}
		}
		for ext, want := range map[string]string{".id": id, ".team": team, ".short": short} {
			if b, err := os.ReadFile(out + ext); err != nil || string(b) != want {
				t.Fatalf("%s: %q (%v), want %q", ext, b, err, want)
			}
		}
		b, err := os.ReadFile(out + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var in struct {
			Action   string
			Resource struct {
				ID, Team string
				GPUs     int
			}
			Argv []string
		}
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("stdin %q: %v", b, err)
		}
		// The JSON keys as documented (snake case): read independently.
		var keys map[string]json.RawMessage
		json.Unmarshal(b, &keys)
		var cost, rate float64
		json.Unmarshal(keys["idle_cost"], &cost)
		json.Unmarshal(keys["hourly_rate"], &rate)
		if in.Action != "stop" || in.Resource.ID != id || in.Resource.Team != team || in.Resource.GPUs != 2 ||
			math.Abs(cost-9) > 1e-9 || rate != 6 || strings.Join(in.Argv, "\x00") != strings.Join(argv, "\x00") {
			t.Fatalf("stdin %s: want id %q team %q, idle_cost 9, hourly_rate 6", b, id, team)
		}
	}
}

// TestExecActionNUL: an id holding NUL cannot be put in an environment; the
// command is not run, and the outcome says so.
func TestExecActionNUL(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	a := &store.WatchAction{Action: "stop", Resource: "gpu\x00a", Argv: []string{"/bin/sh", "-c", "touch " + mark}}
	outcome, why, _, _ := execAction(context.Background(), &config.Config{}, a, &analysis.ResourceNow{ID: "gpu\x00a"}, at)
	if _, err := os.Stat(mark); outcome != store.ActionFailed || err == nil {
		t.Errorf("%s (%s); ran: %v", outcome, why, err == nil)
	}
}

// TestEnvHasEveryField: one FINOPS_* variable per placeholder, each holding
// that field's value (the values set here by hand, one distinct per field).
func TestEnvHasEveryField(t *testing.T) {
	r := &analysis.ResourceNow{ID: "arn:aws:ec2:r:1:instance/i-9", Name: "n m", Team: "t", Provider: "aws", Model: "H100", Mode: "spot", GPUs: 8}
	want := map[string]string{"FINOPS_RESOURCE_ID": "arn:aws:ec2:r:1:instance/i-9", "FINOPS_SHORT_ID": "i-9", "FINOPS_TEAM": "t",
		"FINOPS_RESOURCE_NAME": "n m", "FINOPS_PROVIDER": "aws", "FINOPS_MODEL": "H100", "FINOPS_MODE": "spot", "FINOPS_GPUS": "8"}
	env := watch.Env(r)
	if len(env) != len(watch.Placeholders()) || len(env) != len(want) {
		t.Fatalf("%d variables for %d placeholders: %q", len(env), len(watch.Placeholders()), env)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if want[k] != v {
			t.Errorf("%s=%q, want %q", k, v, want[k])
		}
		delete(want, k)
	}
	if len(want) != 0 {
		t.Errorf("missing %v", want)
	}
}
