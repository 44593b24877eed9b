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

// signalGrace is how long finops may take to stop after SIGINT or SIGTERM.
// Every stage looks at its context and ends within a second; this bounds
// what none does (a FIFO given as --config, a hung file system), so that a
// scheduled run never outlives its stop signal and never keeps the run lock.
const signalGrace = 2 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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
