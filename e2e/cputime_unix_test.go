//go:build unix

package e2e

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process (finops, in-process) has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
