package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// SignalGrace is how long finops may take to stop after SIGINT, SIGTERM or
// SIGHUP.
// Every stage looks at its context and ends within a second; this bounds
// what none does (a FIFO given as --config, a hung file system), so that a
// scheduled run never outlives its stop signal and never keeps the run lock.
const SignalGrace = 2 * time.Second

// RunProcess runs finops as the process: the command line of os.Args, the
// standard streams, the stop signals, and the exit code it returns for
// os.Exit. cmd/finops calls it, and the end-to-end tests' re-executed test
// binary does (the kill -9, two-runs, disk-full and killed-ingest tests
// need separate processes).
func RunProcess(version string) int {
	// SIGHUP too (the terminal closed, a supervisor's reload): killed by
	// it, finops left a workbook's hidden temporary file behind; cancelled,
	// every stage removes what it had begun.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop() // a second signal ends finops at once (the default action)
		time.Sleep(SignalGrace)
		fmt.Fprintf(os.Stderr, "finops: still running %v after the signal: exiting now\n", SignalGrace)
		os.Exit(ExitFailed)
	}()
	m := NewMain(os.Stdin, os.Stdout, os.Stderr)
	m.Version = version
	code := m.Run(ctx, os.Args[1:])
	stop()
	return code
}
