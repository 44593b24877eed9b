// Command finops turns GPU bills and GPU telemetry into weekly cost, idle
// waste and recommendation reports. It only hands the process to
// internal/cli, with the version the build stamped.
package main

import (
	"os"

	_ "time/tzdata" // zones load even in a scratch container

	"github.com/finops-oss/finops/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	os.Exit(cli.RunProcess(version))
}
