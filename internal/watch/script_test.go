package watch

import "testing"

// TestScriptPlaceholder: which argvs put a placeholder into an
// interpreter's script (refused: the index named) and which pass it as a
// separate argument (accepted: -1).
func TestScriptPlaceholder(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want int
	}{
		{[]string{"/bin/sh", "-c", "echo stopping {resource_id}"}, 2},
		{[]string{"/bin/sh", "-e", "-c", "echo {resource_id}"}, 3},
		{[]string{"bash", "-lc", "stop {team}"}, 2},
		{[]string{"/usr/bin/dash", "-c", "stop", "sh", "{resource_id}"}, -1}, // $1 of the script: one argument
		{[]string{"zsh", "/opt/stop.zsh", "{resource_id}"}, -1},
		{[]string{"sh", "{resource_id}"}, 1}, // a script file named by the bill
		{[]string{"ksh", "-c", "x", "{resource_id}"}, -1},
		{[]string{"fish", "--command", "stop {resource_id}"}, 2},
		{[]string{"fish", "--command=stop {resource_id}"}, 1},
		{[]string{"python3.12", "-c", "import os; os.system('{resource_id}')"}, 2},
		{[]string{"python3", "-cprint('{resource_id}')"}, 1},
		{[]string{"python", "-u", "-m", "stopper", "{resource_id}"}, -1},
		{[]string{"python", "/opt/stop.py", "--", "{resource_id}"}, -1},
		{[]string{"perl", "-e", "x", "-e", "system '{resource_id}'"}, 4},
		{[]string{"perl", "-lne", "print", "{resource_id}"}, -1},
		{[]string{"perl", "-Mstrict", "-e", "system '{resource_id}'"}, 3},
		{[]string{"ruby", "-e", "system('{resource_id}')"}, 2},
		{[]string{"node", "-e", "require('child_process').execSync('{resource_id}')"}, 2},
		{[]string{"node", "-pe", "'{resource_id}'"}, 2},
		{[]string{"nodejs", "--eval=x('{resource_id}')"}, 1},
		{[]string{"node", "/opt/stop.js", "{resource_id}"}, -1},
		{[]string{"env", "-S", "sh -c 'echo {resource_id}'"}, 2},
		{[]string{"/usr/bin/env", "--split-string=sh -c", "echo {resource_id}"}, 2},
		{[]string{"env", "FOO=1", "sh", "-c", "echo {resource_id}"}, 4},
		{[]string{"env", "-i", "/opt/stop", "{resource_id}"}, -1},
		{[]string{"busybox", "sh", "-c", "echo {resource_id}"}, 3},
		{[]string{"sudo", "-u", "ops", "/bin/sh", "-c", "echo {resource_id}"}, 5},
		{[]string{"timeout", "-s", "KILL", "30", "bash", "-c", "echo {resource_id}"}, 6},
		{[]string{"sudo", "kubectl", "drain", "node", "{resource_id}"}, -1}, // "node" is an argument here
		{[]string{"kubectl", "delete", "node", "{resource_id}"}, -1},
		{[]string{"flock", "/run/l", "-c", "stop {resource_id}"}, 3},
		{[]string{"cmd.exe", "/c", "stop", "{resource_id}"}, 3},
		{[]string{"pwsh", "-Command", "Stop-VM", "{resource_id}"}, 3},
		{[]string{"powershell", "-File", "stop.ps1", "{resource_id}"}, 3},
		{[]string{"awk", "BEGIN{system(\"stop {resource_id}\")}"}, 1},
		{[]string{"awk", "-f", "/opt/x.awk", "{resource_id}"}, -1},
		{[]string{"/usr/local/bin/stop-gpu", "--", "{resource_id}"}, -1},
		{[]string{"aws", "ec2", "stop-instances", "--instance-ids", "{short_id}"}, -1},
		// Issue 32's commands as whole arguments (the second line only).
		{[]string{"chroot", "/", "/bin/sh", "-c", "{resource_id}"}, 4},
		{[]string{"xargs", "-I", "Q", "sh", "-c", "{resource_id}"}, 5},
		{[]string{"su", "-c", "{resource_id}", "ops"}, 2},
		{[]string{"sed", "-n", "{resource_id}", "/etc/hostname"}, 2},
		{[]string{"sed", "-n", "-e", "p", "{resource_id}"}, -1}, // a file to read
		// Truncated or odd argvs: an answer, no panic.
		{nil, -1}, {[]string{""}, -1}, {[]string{"sh"}, -1}, {[]string{"sh", "-c"}, -1}, {[]string{"env", "-S"}, -1},
		{[]string{"env", "--"}, -1}, {[]string{"perl", "-", "{resource_id}"}, -1}, {[]string{"node", "-e"}, -1},
		{[]string{"timeout"}, -1}, {[]string{"python", "-c"}, -1}, {[]string{"sudo", "--", "sh", "-c", "{team}"}, 4},
		{[]string{"sh", "-c", "-"}, -1}, {[]string{"bash", "-o"}, -1}, {[]string{"env", "-u"}, -1},
	} {
		if got, _ := scriptPlaceholder(tc.argv); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.argv, got, tc.want)
		}
	}
}
