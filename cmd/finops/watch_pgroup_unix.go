//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in a process group of its own and
// makes the timeout kill the whole group: a script that started a
// long-running child must not leave it behind.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
