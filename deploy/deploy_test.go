// Package deploy_test checks the files operators copy onto a machine: the
// systemd units, the sysusers.d file and the crontab. There is no Go code in
// deploy/; a unit that systemd rejects is found only on the target host.
package deploy_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/testenv"
)

var units = []string{"finops.service", "finops.timer", "finops-nvml.service"}

// TestSystemdVerify runs systemd-analyze verify over the units. It checks
// that ExecStart's binary exists and is executable, so the units are
// verified as copies whose /usr/local/bin/ points at stand-in executables in
// a temporary folder; everything else is verified as shipped.
func TestSystemdVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		testenv.Missing(t, "systemd-analyze not found: install systemd (apt-get install systemd) to verify deploy/*.service")
		return
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"finops", "finops-nvml"} {
		if err := os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"verify", "--man=no"}
	for _, u := range units {
		b, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(b), "/usr/local/bin/", bin+"/")
		if err := os.WriteFile(filepath.Join(dir, u), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, filepath.Join(dir, u))
	}
	out, err := exec.Command(analyze, args...).CombinedOutput()
	// verify only warns (exit 0) about an unknown key or a bad value: any
	// output is a finding.
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestSystemdUsers: every User= and Group= of the units is created by
// finops.sysusers.conf, no unit uses DynamicUser= (its state folder is under
// /var/lib/private, mode 0700, out of the other unit's reach), and the
// collector writes its spool where StateDirectory= makes it, as the weekly
// job's user.
func TestSystemdUsers(t *testing.T) {
	declared := map[string]bool{} // "u finops" and the group it implies
	f, err := os.Open("finops.sysusers.conf")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && (fields[0] == "u" || fields[0] == "g") {
			declared[fields[1]] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	keys := map[string]map[string]string{}
	for _, u := range units {
		keys[u] = unitKeys(t, u)
		for _, k := range []string{"User", "Group"} {
			if name := keys[u][k]; name != "" && !declared[name] {
				t.Errorf("%s: %s=%s, which finops.sysusers.conf does not create", u, k, name)
			}
		}
		if keys[u]["DynamicUser"] != "" {
			t.Errorf("%s: DynamicUser=%s puts its state under /var/lib/private, unreadable by the other unit", u, keys[u]["DynamicUser"])
		}
	}
	weekly, nvml := keys["finops.service"], keys["finops-nvml.service"]
	if nvml["User"] != weekly["User"] || nvml["Group"] != weekly["Group"] {
		t.Errorf("finops-nvml.service runs as %s:%s, the weekly job as %s:%s: the job cannot read the spool",
			nvml["User"], nvml["Group"], weekly["User"], weekly["Group"])
	}
	spool := "/var/lib/" + nvml["StateDirectory"]
	if !strings.Contains(nvml["ExecStart"], "--out "+spool+" ") {
		t.Errorf("finops-nvml.service: ExecStart=%s does not write to its StateDirectory %s", nvml["ExecStart"], spool)
	}

	// Last: where systemd-sysusers is missing, the test skips from here.
	if sysusers, err := exec.LookPath("systemd-sysusers"); err != nil {
		testenv.Missing(t, "systemd-sysusers not found: install systemd (apt-get install systemd) to check finops.sysusers.conf")
	} else {
		conf, err := filepath.Abs("finops.sysusers.conf") // a relative path is taken under --root
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(sysusers, "--dry-run", "--root="+t.TempDir(), conf).CombinedOutput()
		if err != nil || strings.Contains(string(out), "finops.sysusers.conf:") {
			t.Errorf("systemd-sysusers --dry-run: %v\n%s", err, out)
		}
	}
}

// unitKeys returns a unit file's Key=value settings (the last of each key).
func unitKeys(t *testing.T, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '[' {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			keys[k] = v
		}
	}
	return keys
}

// TestCrontabFullPath: cron runs a job with PATH=/usr/bin:/bin, where a
// bare "finops" is not found (the install puts it in /usr/local/bin).
func TestCrontabFullPath(t *testing.T) {
	b, err := os.ReadFile("crontab")
	if err != nil {
		t.Fatal(err)
	}
	bare := regexp.MustCompile(`(^|[;&|]\s*)finops(\s|$)`)
	jobs := 0
	for i, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" || line[0] == '#' {
			continue
		}
		jobs++
		fields := strings.Fields(line)
		if len(fields) < 6 {
			t.Fatalf("crontab:%d: want five time fields and a command: %q", i+1, line)
		}
		cmd := strings.Join(fields[5:], " ")
		if bare.MatchString(cmd) || !strings.Contains(cmd, "/usr/local/bin/finops ") {
			t.Errorf("crontab:%d: call finops by its full path (/usr/local/bin/finops): %q", i+1, cmd)
		}
	}
	if jobs == 0 {
		t.Error("crontab: no job line")
	}
}
