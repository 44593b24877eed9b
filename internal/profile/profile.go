// Package profile writes the CPU and heap profiles of a whole command
// (finops's hidden --cpuprofile and --memprofile flags, for
// docs/BENCHMARKS.md).
package profile

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Start starts the CPU profile of --cpuprofile (cpuProfile, "" for none);
// the returned stop ends it and writes the heap profile of --memprofile
// (memProfile) after a GC, so it shows what is still live at the end and,
// with -sample_index=alloc_space, everything allocated.
func Start(cpuProfile, memProfile string) (stop func() error, err error) {
	var cpu *os.File
	if cpuProfile != "" {
		if cpu, err = os.Create(cpuProfile); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return fmt.Errorf("--cpuprofile: %w", err)
			}
		}
		if memProfile == "" {
			return nil
		}
		f, err := os.Create(memProfile)
		if err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			return fmt.Errorf("--memprofile: %w", err)
		}
		return f.Close()
	}, nil
}
