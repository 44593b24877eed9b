package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts the CPU profile of --cpuprofile; the returned stop
// ends it and writes the heap profile of --memprofile (after a GC, so it
// shows what is still live at the end and, with -sample_index=alloc_space,
// everything allocated). Hidden flags for docs/BENCHMARKS.md's profiling of
// whole commands.
func (m *Main) startProfiles() (stop func() error, err error) {
	var cpu *os.File
	if m.cpuProfile != "" {
		if cpu, err = os.Create(m.cpuProfile); err != nil {
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
		if m.memProfile == "" {
			return nil
		}
		f, err := os.Create(m.memProfile)
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
