package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/store"
)

// hostileWatchEnv is a fleet whose bill names the given resources, one GPU
// host each (host-0, host-1, …), all busy until 01:00 and idle after, in
// team nlp, with the watch section given (a format with the database,
// bill and Prometheus already filled in before it).
func hostileWatchEnv(t *testing.T, ids []string, watchSection string) *watchEnv {
	t.Helper()
	var om promtest.OpenMetrics
	om.Family(dcgm.GPUUtil)
	var resources strings.Builder
	for i, id := range ids {
		host := fmt.Sprintf("host-%d", i)
		l := []string{"gpu", "0", "UUID", "GPU-" + host, "modelName", "NVIDIA A100-SXM4-80GB", "Hostname", host, "job", "dcgm"}
		for m := 0; m < 300; m++ {
			u := "95"
			if m >= 60 {
				u = "2"
			}
			om.Sample(l, watchAt(0, m), u)
		}
		q, _ := json.Marshal(id)
		fmt.Fprintf(&resources, "  - {id: %s, hosts: [%s], team: nlp}\n", q, host)
	}
	srv := promtest.Start(t, om.Bytes())
	dir := t.TempDir()
	bill := filepath.Join(dir, "autodl.csv")
	body := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"
	for _, id := range ids {
		body += `"` + strings.ReplaceAll(id, `"`, `""`) + `",训练机,A100-SXM4-80GB * 1,按量计费,2026-11-30 00:00:00,2026-11-30 08:00:00,¥19.20,¥19.20` + "\n"
	}
	if err := os.WriteFile(bill, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return watchEnvWith(t, dir, bill, labWatchConfig(dir, bill, srv.URL, resources.String(), watchSection))
}

// labWatchConfig is the configuration the hostile-bill watch tests share:
// the database in dir, the AutoDL bill, one Prometheus (no retries, so a
// pass never waits), the resources given (YAML list items), all in team nlp,
// then the watch section given.
func labWatchConfig(dir, bill, promURL, resources, watchSection string) string {
	return fmt.Sprintf(`database: %s
timezone: Asia/Shanghai
billing:
  - path: %s
    mapping: autodl
utilization:
  prometheus:
    - {url: %s, name: lab, timeout: 5s, retries: 0}
resources:
%steams:
  - name: nlp
%s`, filepath.Join(dir, "f.db"), bill, promURL, resources, watchSection)
}

// TestWatchOldFormRefusedAtLoad: issue 32's commands, each of which loaded
// and, on the acting pass, ran a billed id, now stop `finops watch` at load
// with exit 2 (cli.ExitUsage: bad configuration), naming the key and its line,
// with the migration to the environment; nothing runs.
func TestWatchOldFormRefusedAtLoad(t *testing.T) {
	e := hostileWatchEnv(t, []string{"reboot"}, "")
	for _, tc := range []struct{ name, cmd, key string }{
		{"chroot … sh -c", `[chroot, /, /bin/sh, -c, "{resource_id}"]`, "watch.on_idle.command[4]"},
		{"sed's e flag", `[sed, -n, "1s#.*#{resource_id}#ep", /etc/hostname]`, "watch.on_idle.command[2]"},
		{"su -c", `[su, -c, "/usr/local/bin/stop {resource_id}"]`, "watch.on_idle.command[2]"},
		{"xargs sh -c", `[xargs, -I, Q, sh, -c, "/usr/local/bin/stop {resource_id} Q"]`, "watch.on_idle.command[5]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := os.ReadFile(e.cfg)
			if err != nil {
				t.Fatal(err)
			}
			// The acting watch of the issue: act on, the team allowed.
			bad := string(cfg) + "watch:\n  act: true\n  allow:\n    teams: [nlp]\n  on_idle:\n    after: 1h\n    action: stop\n    command: " + tc.cmd + "\n"
			line := strings.Count(bad, "\n") // the command is the last line
			p := filepath.Join(e.dir, "old.yaml")
			if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			old := *e
			old.cfg = p
			code, out, errs := old.run(t, watchAt(2, 0), "watch")
			want := []string{fmt.Sprintf("line %d: %s:", line, tc.key),
				`use "$FINOPS_RESOURCE_ID" through env: [sh, -c, 'runpodctl stop pod "$FINOPS_RESOURCE_ID"']`}
			if code != cli.ExitUsage {
				t.Errorf("exit %d, want %d\n%s%s", code, cli.ExitUsage, out, errs)
			}
			for _, w := range want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
}

// TestWatchStopThroughEnv: the same stop, through the environment. Bills
// name resources "gpu-x; touch PWNED", "reboot" (a program of that name is
// planted first on PATH, creating PWNED-reboot), "$(touch PWNED-sub)",
// "--help" and "`touch PWNED-tick`", all idle and allowed by team. The
// command is a real sh script from the config, [sh, -c, '{ printf
// "ID<%s>\n" "$FINOPS_RESOURCE_ID"; cat; } >> "$0"', LOG]: the acting pass
// runs it for each, it receives each id byte for byte and the JSON on its
// stdin names the same id, action and team; no PWNED file appears.
func TestWatchStopThroughEnv(t *testing.T) {
	ids := []string{"gpu-x; touch PWNED", "reboot", "$(touch PWNED-sub)", "--help", "`touch PWNED-tick`"}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "reboot"), []byte("#!/bin/sh\ntouch "+filepath.Join(dir, "PWNED-reboot")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	log := filepath.Join(dir, "calls.log")
	q, _ := json.Marshal(log)
	e := hostileWatchEnv(t, ids, fmt.Sprintf(`watch:
  act: true
  max_actions: 10
  allow:
    teams: [nlp]
  on_idle:
    after: 1h
    action: stop
    command: [sh, -c, '{ printf "ID<%%s>\n" "$FINOPS_RESOURCE_ID"; cat; } >> "$0"', %s]
  channels:
    - {type: slack, url_env: SLACK_URL}
`, q))
	// The commands run in the test's working directory: PWNED files would
	// land there or in dir.
	wd, _ := os.Getwd()
	e.pass(t, watchAt(1, 31), 0)
	e.pass(t, watchAt(1, 45), 0)
	_, out := e.pass(t, watchAt(2, 0), 0)
	for _, d := range []string{dir, wd, e.dir} {
		m, _ := filepath.Glob(filepath.Join(d, "PWNED*"))
		if len(m) > 0 {
			t.Errorf("%v exist: a billed id ran as code", m)
		}
	}
	// The log, split by hand: "ID<id>\n" then the JSON document's line.
	got := map[string]bool{}
	rest := readLog(t, log)
	for rest != "" {
		if !strings.HasPrefix(rest, "ID<") {
			t.Fatalf("the log is not ID<…> and JSON lines:\n%s", readLog(t, log))
		}
		end := strings.Index(rest, ">\n")
		id := rest[3:end]
		rest = rest[end+2:]
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		var in struct {
			Action   string `json:"action"`
			Resource struct {
				ID   string `json:"id"`
				Team string `json:"team"`
			} `json:"resource"`
			IdleSince string `json:"idle_since"`
		}
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("stdin for %q: %q: %v", id, line, err)
		}
		// Idle from 01:00 UTC (minute 60 of the telemetry).
		if in.Resource.ID != id || in.Action != "stop" || in.Resource.Team != "nlp" || in.IdleSince != "2026-11-30T01:00:00Z" {
			t.Errorf("stdin for %q: %s", id, line)
		}
		got[id] = true
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("the command never got %q in FINOPS_RESOURCE_ID:\n%s\n%s", id, readLog(t, log), out)
		}
	}
	if len(got) != len(ids) {
		t.Errorf("%d ids, want %d: %v", len(got), len(ids), got)
	}
	for _, a := range actionsOf(t, e.db) {
		if a.Outcome != store.ActionDone {
			t.Errorf("%q: %s %s", a.Resource, a.Outcome, a.Reason)
		}
	}
}
