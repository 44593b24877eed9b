// Command finops turns GPU bills and GPU telemetry into weekly cost, idle
// waste and recommendation reports.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "time/tzdata" // zones load even in a scratch container
)

// signalGrace is how long finops may take to stop after SIGINT, SIGTERM or
// SIGHUP.
// Every stage looks at its context and ends within a second; this bounds
// what none does (a FIFO given as --config, a hung file system), so that a
// scheduled run never outlives its stop signal and never keeps the run lock.
const signalGrace = 2 * time.Second

func main() {
	// SIGHUP too (the terminal closed, a supervisor's reload): killed by
	// it, finops left a workbook's hidden temporary file behind; cancelled,
	// every stage removes what it had begun.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop() // a second signal ends finops at once (the default action)
		time.Sleep(signalGrace)
		fmt.Fprintf(os.Stderr, "finops: still running %v after the signal: exiting now\n", signalGrace)
		os.Exit(ExitFailed)
	}()
	code := NewMain(os.Stdin, os.Stdout, os.Stderr).Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
