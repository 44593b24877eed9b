//go:build unix

package pass

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup starts the command in a process group of its own, so
// that killGroup ends what it started too: a script that started a
// long-running child must not leave it behind.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends the process group p leads (its id is p's): SIGTERM, so that its members may
// clean up, then SIGKILL for those still there after grace. It returns at
// once when the group is empty (ESRCH). A member that died but is not yet
// reaped by its parent still counts, so at worst it costs grace.
func killGroup(p *os.Process, grace time.Duration) {
	pgid := p.Pid
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return // no such group: nothing left
	}
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}
