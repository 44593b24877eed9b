//go:build !unix

package e2e

import "time"

// cpuTime is unknown here: the benchmark logs 0.
func cpuTime() time.Duration { return 0 }
