//go:build nvml && cgo

package nvml

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Available reports whether this build can collect: it was built with
// -tags nvml and cgo.
const Available = true

// Collect samples every GPU every opt.Interval until ctx ends (SIGTERM), then
// finishes the open spool file. Without an NVIDIA driver or GPU it fails at
// once with a message that says so.
func Collect(ctx context.Context, opt Options) error {
	return collect(ctx, opt, nvml.New(), time.Now, nil, nil)
}

// driverGone reports NVML answers that mean the driver went away (unloaded,
// restarted, GPU fallen off the bus): the collector re-initialises and goes on.
func driverGone(r nvml.Return) bool {
	switch r {
	case nvml.ERROR_UNINITIALIZED, nvml.ERROR_DRIVER_NOT_LOADED, nvml.ERROR_GPU_IS_LOST,
		nvml.ERROR_LIB_RM_VERSION_MISMATCH, nvml.ERROR_UNKNOWN, nvml.ERROR_RESET_REQUIRED:
		return true
	}
	return false
}

// startError explains why NVML cannot start on this machine.
func startError(r nvml.Return) error {
	switch r {
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return errors.New("nvml: libnvidia-ml.so.1 not found: finops collect nvml runs on a GPU host with the NVIDIA driver installed")
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return errors.New("nvml: the NVIDIA driver is not loaded: is there a GPU on this machine (nvidia-smi works)?")
	case nvml.ERROR_NO_PERMISSION:
		return errors.New("nvml: no permission to use the NVIDIA driver: run as a user that can open /dev/nvidia*")
	}
	return fmt.Errorf("nvml: init: %v", r)
}

// collect is Collect with the library, clock and ticker injected (tests pass
// go-nvml's mock and a channel they drive); done, when not nil, hears of
// every finished round.
func collect(ctx context.Context, opt Options, lib nvml.Interface, now func() time.Time, tick <-chan time.Time, done chan<- struct{}) error {
	if err := opt.defaults(); err != nil {
		return err
	}
	if r := lib.Init(); r != nvml.SUCCESS {
		return startError(r)
	}
	up := true
	defer func() {
		if up {
			lib.Shutdown()
		}
	}()
	n, r := lib.DeviceGetCount()
	if r != nvml.SUCCESS {
		return fmt.Errorf("nvml: count GPUs: %v", r)
	}
	if n == 0 {
		return errors.New("nvml: no NVIDIA GPU found on this machine")
	}
	spool, err := OpenSpool(opt)
	if err != nil {
		return err
	}
	opt.Log.Info("nvml: collecting", "gpus", n, "interval", opt.Interval, "out", opt.Dir)
	if tick == nil {
		t := time.NewTicker(opt.Interval)
		defer t.Stop()
		tick = t.C
	}
	round := func() error {
		if done != nil {
			defer func() { done <- struct{}{} }()
		}
		at := now().UTC()
		if !up {
			if r := lib.Init(); r != nvml.SUCCESS {
				return nil // still down: try again next round
			}
			up = true
			opt.Log.Info("nvml: driver back, collecting again")
		}
		rows, r := sample(lib, at)
		if driverGone(r) {
			opt.Log.Warn("nvml: driver went away; re-initialising next round", "error", r.Error())
			lib.Shutdown()
			up = false
			return nil
		}
		return spool.Write(at, rows)
	}
	if err := round(); err != nil {
		spool.Close()
		return err
	}
	for {
		select {
		case <-ctx.Done():
			opt.Log.Info("nvml: stopping")
			return spool.Close()
		case _, ok := <-tick:
			if !ok {
				return spool.Close()
			}
			if err := round(); err != nil {
				spool.Close()
				return err
			}
		}
	}
}

// sample reads every GPU and MIG instance once. A GPU that answers with an
// error is skipped this round; an error that means the driver is gone is
// returned so the collector can start NVML again.
func sample(lib nvml.Interface, at time.Time) ([]Row, nvml.Return) {
	n, r := lib.DeviceGetCount()
	if r != nvml.SUCCESS {
		return nil, r
	}
	var rows []Row
	for i := 0; i < n; i++ {
		dev, r := lib.DeviceGetHandleByIndex(i)
		if r != nvml.SUCCESS {
			if driverGone(r) {
				return nil, r
			}
			continue
		}
		row, r := read(dev, i, at)
		if r != nvml.SUCCESS {
			if driverGone(r) {
				return nil, r
			}
			continue
		}
		rows = append(rows, row)
		if mode, _, r := dev.GetMigMode(); r == nvml.SUCCESS && mode == nvml.DEVICE_MIG_ENABLE {
			rows = append(rows, migRows(dev, i, at)...)
		}
	}
	return rows, nvml.SUCCESS
}

func read(dev nvml.Device, index int, at time.Time) (Row, nvml.Return) {
	uuid, r := dev.GetUUID()
	if r != nvml.SUCCESS {
		return Row{}, r
	}
	row := Row{Time: at, Index: index, UUID: uuid}
	if name, r := dev.GetName(); r == nvml.SUCCESS {
		row.Name = name
	}
	// NOT_SUPPORTED (MIG mode) leaves the utilization [N/A]: missing, not zero.
	if u, r := dev.GetUtilizationRates(); r == nvml.SUCCESS {
		v := float64(u.Gpu)
		row.Util = &v
	} else if driverGone(r) {
		return Row{}, r
	}
	if m, r := dev.GetMemoryInfo(); r == nvml.SUCCESS {
		used, total := float64(m.Used)/(1<<20), float64(m.Total)/(1<<20)
		row.MemUsedMiB, row.MemTotalMiB = &used, &total
	}
	if mw, r := dev.GetPowerUsage(); r == nvml.SUCCESS {
		w := float64(mw) / 1000
		row.PowerW = &w
	}
	if ps, r := dev.GetComputeRunningProcesses(); r == nvml.SUCCESS {
		n := len(ps)
		row.ComputeApps = &n
	}
	return row, nvml.SUCCESS
}

// migRows reads each MIG instance of a GPU: its own UUID and memory.
func migRows(dev nvml.Device, parent int, at time.Time) []Row {
	max, r := dev.GetMaxMigDeviceCount()
	if r != nvml.SUCCESS {
		return nil
	}
	var out []Row
	for j := 0; j < max; j++ {
		mig, r := dev.GetMigDeviceHandleByIndex(j)
		if r != nvml.SUCCESS {
			continue // NOT_FOUND: no instance in that slot
		}
		row, r := read(mig, parent, at)
		if r != nvml.SUCCESS {
			continue
		}
		row.Util = nil // NVML has no utilization for a MIG instance
		out = append(out, row)
	}
	return out
}
