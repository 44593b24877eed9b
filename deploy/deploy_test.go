// Package deploy_test checks the files operators copy onto a machine: the
// systemd units, the sysusers.d file, the crontab and the Kubernetes
// CronJobs. There is no Go code in deploy/; a unit that systemd rejects is
// found only on the target host.
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
	"go.yaml.in/yaml/v3"
)

var units = []string{"finops.service", "finops.timer", "finops-nvml.service", "finops-watch.service", "finops-watch.timer"}

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
	weekly, nvml, watch := keys["finops.service"], keys["finops-nvml.service"], keys["finops-watch.service"]
	if nvml["User"] != weekly["User"] || nvml["Group"] != weekly["Group"] {
		t.Errorf("finops-nvml.service runs as %s:%s, the weekly job as %s:%s: the job cannot read the spool",
			nvml["User"], nvml["Group"], weekly["User"], weekly["Group"])
	}
	// The watch works on the weekly job's database, with its secrets.
	for _, k := range []string{"User", "Group", "StateDirectory", "WorkingDirectory", "EnvironmentFile"} {
		if watch[k] != weekly[k] {
			t.Errorf("finops-watch.service: %s=%s, the weekly job's is %s=%s: the watch must share its database and secrets",
				k, watch[k], k, weekly[k])
		}
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

// TestWatchTimer: finops-watch.timer starts finops-watch.service every 5
// minutes on the clock, as systemd itself computes the calendar: the next
// three elapses after 10:02 are 10:05, 10:10 and 10:15 (worked out by hand).
func TestWatchTimer(t *testing.T) {
	keys := unitKeys(t, "finops-watch.timer")
	if keys["Unit"] != "finops-watch.service" {
		t.Errorf("finops-watch.timer: Unit=%s, want finops-watch.service", keys["Unit"])
	}
	if keys["Persistent"] == "true" {
		t.Error("finops-watch.timer: Persistent=true would run a missed pass late at boot; the next pass does its work")
	}
	service := unitKeys(t, "finops-watch.service")
	if !strings.HasSuffix(service["ExecStart"], " watch") || !strings.HasPrefix(service["ExecStart"], "/usr/local/bin/finops ") {
		t.Errorf("finops-watch.service: ExecStart=%s, want /usr/local/bin/finops … watch", service["ExecStart"])
	}
	// Exit 5 is a pass skipped while the weekly job holds the lock.
	if service["SuccessExitStatus"] != "5" {
		t.Errorf("finops-watch.service: SuccessExitStatus=%s, want 5", service["SuccessExitStatus"])
	}

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		testenv.Missing(t, "systemd-analyze not found: install systemd (apt-get install systemd) to check finops-watch.timer's calendar")
		return
	}
	cmd := exec.Command(analyze, "calendar", "--iterations=3", "--base-time=2026-12-01 10:02:00 UTC", keys["OnCalendar"])
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze calendar %q: %v\n%s", keys["OnCalendar"], err, out)
	}
	var got []string
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ": "); ok && (k == "Next elapse" || strings.HasPrefix(k, "Iter. #")) {
			got = append(got, v)
		}
	}
	want := []string{"Tue 2026-12-01 10:05:00 UTC", "Tue 2026-12-01 10:10:00 UTC", "Tue 2026-12-01 10:15:00 UTC"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("OnCalendar=%s elapses at %q, want %q\n%s", keys["OnCalendar"], got, want, out)
	}
}

// TestCrontabJobs: the weekly run and a watch pass every 5 minutes.
func TestCrontabJobs(t *testing.T) {
	b, err := os.ReadFile("crontab")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"0 8 * * 1": " run ", "*/5 * * * *": " watch "}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		when, cmd := strings.Join(fields[:5], " "), strings.Join(fields[5:], " ")
		if sub, ok := want[when]; ok && strings.Contains(cmd, "/usr/local/bin/finops ") && strings.Contains(cmd, sub) {
			delete(want, when)
		}
	}
	for when, sub := range want {
		t.Errorf("crontab: no %q line running finops%s", when, sub)
	}
}

// cronJob is what TestCronJobs reads of a Kubernetes CronJob.
type cronJob struct {
	Kind string `yaml:"kind"`
	Spec struct {
		Schedule          string `yaml:"schedule"`
		ConcurrencyPolicy string `yaml:"concurrencyPolicy"`
		JobTemplate       struct {
			Spec struct {
				ActiveDeadlineSeconds int `yaml:"activeDeadlineSeconds"`
				Template              struct {
					Spec struct {
						SecurityContext struct {
							RunAsNonRoot bool `yaml:"runAsNonRoot"`
						} `yaml:"securityContext"`
						Containers []struct {
							Name    string   `yaml:"name"`
							Args    []string `yaml:"args"`
							EnvFrom []struct {
								SecretRef *struct {
									Name string `yaml:"name"`
								} `yaml:"secretRef"`
							} `yaml:"envFrom"`
							Env []struct {
								Name  string `yaml:"name"`
								Value string `yaml:"value"`
							} `yaml:"env"`
							VolumeMounts []struct {
								Name      string `yaml:"name"`
								MountPath string `yaml:"mountPath"`
							} `yaml:"volumeMounts"`
						} `yaml:"containers"`
						Volumes []struct {
							Name                  string `yaml:"name"`
							PersistentVolumeClaim *struct {
								ClaimName string `yaml:"claimName"`
							} `yaml:"persistentVolumeClaim"`
						} `yaml:"volumes"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"`
	} `yaml:"spec"`
}

func readCronJob(t *testing.T, name string) cronJob {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	for {
		var j cronJob
		if err := dec.Decode(&j); err != nil {
			t.Fatalf("%s: no CronJob: %v", name, err)
		}
		if j.Kind == "CronJob" {
			return j
		}
	}
}

// TestCronJobs: the weekly and the watch CronJob never run two at once,
// take their secrets from Secrets (never a literal value), run as non-root
// and share one database volume; the watch every 5 minutes, each pass
// ending before the next is due.
func TestCronJobs(t *testing.T) {
	weekly, watch := readCronJob(t, "cronjob.yaml"), readCronJob(t, "cronjob-watch.yaml")
	if weekly.Spec.Schedule != "0 8 * * 1" || watch.Spec.Schedule != "*/5 * * * *" {
		t.Errorf("schedules %q and %q, want the weekly \"0 8 * * 1\" and the watch \"*/5 * * * *\"", weekly.Spec.Schedule, watch.Spec.Schedule)
	}
	if d := watch.Spec.JobTemplate.Spec.ActiveDeadlineSeconds; d <= 0 || d >= 300 {
		t.Errorf("cronjob-watch.yaml: activeDeadlineSeconds %d, want a pass stopped within its 5 minutes", d)
	}
	claims := map[string]string{}
	for name, j := range map[string]cronJob{"cronjob.yaml": weekly, "cronjob-watch.yaml": watch} {
		if j.Spec.ConcurrencyPolicy != "Forbid" {
			t.Errorf("%s: concurrencyPolicy %q, want Forbid", name, j.Spec.ConcurrencyPolicy)
		}
		pod := j.Spec.JobTemplate.Spec.Template.Spec
		if !pod.SecurityContext.RunAsNonRoot {
			t.Errorf("%s: runAsNonRoot is not set", name)
		}
		if len(pod.Containers) != 1 {
			t.Fatalf("%s: %d containers, want 1", name, len(pod.Containers))
		}
		c := pod.Containers[0]
		secrets := 0
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil && e.SecretRef.Name != "" {
				secrets++
			}
		}
		if secrets == 0 {
			t.Errorf("%s: no envFrom secretRef: secrets come from a Secret", name)
		}
		for _, e := range c.Env {
			if e.Value != "" && regexp.MustCompile(`(?i)url|secret|token|password|key`).MatchString(e.Name) {
				t.Errorf("%s: env %s has a literal value: take it from the Secret", name, e.Name)
			}
		}
		for _, v := range pod.Volumes {
			for _, m := range c.VolumeMounts {
				if v.PersistentVolumeClaim != nil && m.Name == v.Name {
					claims[name] = v.PersistentVolumeClaim.ClaimName + " at " + m.MountPath
				}
			}
		}
	}
	if claims["cronjob.yaml"] == "" || claims["cronjob.yaml"] != claims["cronjob-watch.yaml"] {
		t.Errorf("database volumes %q and %q: the watch must mount the weekly job's", claims["cronjob.yaml"], claims["cronjob-watch.yaml"])
	}
	if args := watch.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args; len(args) == 0 || args[len(args)-1] != "watch" {
		t.Errorf("cronjob-watch.yaml: args %q, want finops … watch", args)
	}
}
