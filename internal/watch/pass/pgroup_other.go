//go:build !unix

package pass

import (
	"os"
	"os/exec"
	"time"
)

// setProcessGroup: without process groups, only the command itself is
// ended (killGroup).
func setProcessGroup(*exec.Cmd) {}

// killGroup kills the command's process: there is no group to end. After
// Wait, Kill does nothing (the handle, not a pid that may be reused).
func killGroup(p *os.Process, _ time.Duration) {
	p.Kill()
}
