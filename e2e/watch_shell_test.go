package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/store"
)

// TestWatchShellFromBill: a bill names two resources "gpu-x; touch PWNED"
// and "--help", next to a plain gpu-c; all three idle from 01:00, allowed
// by their team, on_idle after 1h. The command is a real script that, like
// many wrappers (or ssh), hands its argument on to a shell, and it takes
// "{resource_id}" as a whole argument, which only watch.allow.resources
// (gpu-c) may fill. The listed resource gets its grace alert and its
// command; the two hostile ids, on no list, never reach its argv: no file
// PWNED appears, the script's log holds gpu-c only, and the ledger records
// both actions refused with the reason (the variable that would carry the
// id), which the pass prints. Before issue 32 the values were checked by
// shape (CheckValue) instead; that check now only guards listed values.
func TestWatchShellFromBill(t *testing.T) {
	hosts := []string{"gpu-a", "gpu-b", "gpu-c"}
	var om promtest.OpenMetrics
	om.Family(dcgm.GPUUtil)
	for _, host := range hosts {
		l := []string{"gpu", "0", "UUID", "GPU-" + host, "modelName", "NVIDIA A100-SXM4-80GB", "Hostname", host, "job", "dcgm"}
		for m := 0; m < 300; m++ {
			u := "95"
			if m >= 60 {
				u = "2"
			}
			om.Sample(l, watchAt(0, m), u)
		}
	}
	srv := promtest.Start(t, om.Bytes())
	dir := t.TempDir()
	bill := filepath.Join(dir, "autodl.csv")
	body := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"
	for _, id := range []string{"gpu-x; touch PWNED", "--help", "gpu-c"} {
		body += id + ",训练机,A100-SXM4-80GB * 1,按量计费,2026-11-30 00:00:00,2026-11-30 08:00:00,¥19.20,¥19.20\n"
	}
	if err := os.WriteFile(bill, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "calls.log")
	script := filepath.Join(dir, "stop.sh")
	// The wrapper passes its second argument to a shell, as a script that
	// ssh-es to the host or builds a CLI line would.
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncd "+dir+" || exit 9\n{ printf 'argv'; for a in \"$@\"; do printf ' [%s]' \"$a\"; done; echo; } >> "+
		log+"\nsh -c \"echo stopping $2\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := watchEnvWith(t, dir, bill, labWatchConfig(dir, bill, srv.URL, `  - {id: "gpu-x; touch PWNED", hosts: [gpu-a], team: nlp}
  - {id: "--help", hosts: [gpu-b], team: nlp}
  - {id: gpu-c, hosts: [gpu-c], team: nlp}
`, fmt.Sprintf(`watch:
  act: true
  max_actions: 5
  allow:
    resources: [gpu-c]
    teams: [nlp]
  on_idle:
    after: 1h
    action: stop
    command: [%s, stop, "{resource_id}"]
  channels:
    - {type: slack, url_env: SLACK_URL}
`, script)))
	if got, _ := e.pass(t, watchAt(1, 31), 0); len(got) != 3 {
		t.Fatalf("01:31: %d alerts, want 3 idle ones: %+v", len(got), got)
	}
	got, _ := e.pass(t, watchAt(1, 45), 0)
	if len(got) != 1 || got[0].Event != "grace" || got[0].Resource != "gpu-c" {
		t.Errorf("01:45: want one grace alert, for gpu-c only: %+v", got)
	}
	_, out := e.pass(t, watchAt(2, 0), 0)
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("the file PWNED exists: the billed id ran as shell")
	}
	if l := readLog(t, log); l != "argv [stop] [gpu-c]\n" {
		t.Errorf("the command's log:\n%s\nwant gpu-c's call only", l)
	}
	const notListed = ` is not exactly one of watch.allow.resources, so it is not put in the command's arguments; the command has it as $FINOPS_RESOURCE_ID`
	for _, want := range []string{
		`watch: stop gpu-x; touch PWNED: refused: unsafe for its command: {resource_id} "gpu-x; touch PWNED"` + notListed,
		`watch: stop --help: refused: unsafe for its command: {resource_id} "--help"` + notListed,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the pass does not say %q:\n%s", want, out)
		}
	}
	st, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acts, err := st.Actions(context.Background(), watchDay, watchDay.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]string{}
	for _, a := range acts {
		outcomes[a.Resource] = a.Outcome + " " + a.Reason
		if a.Outcome == store.ActionRefused && strings.Contains(strconv.Quote(strings.Join(a.Argv, " ")), "PWNED") {
			t.Errorf("the refused action's argv holds the billed id: %q", a.Argv)
		}
	}
	for id, want := range map[string]string{
		"gpu-x; touch PWNED": `refused unsafe for its command: {resource_id} "gpu-x; touch PWNED"` + notListed,
		"--help":             `refused unsafe for its command: {resource_id} "--help"` + notListed,
		"gpu-c":              "done ",
	} {
		if !strings.HasPrefix(outcomes[id], want) {
			t.Errorf("%s: action %q, want %q", id, outcomes[id], want)
		}
	}
	if len(acts) != 3 {
		t.Errorf("%d actions, want 3: %+v", len(acts), acts)
	}
}
