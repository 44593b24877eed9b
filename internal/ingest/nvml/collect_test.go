//go:build nvml && cgo

package nvml

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// fakeGPU is one mock device whose utilization the test sets per round.
type fakeGPU struct {
	uuid, name string
	util       atomic.Int32 // -1: NOT_SUPPORTED (MIG mode)
	mig        []*mock.Device
}

func (g *fakeGPU) device() *mock.Device {
	return &mock.Device{
		GetUUIDFunc: func() (string, nvml.Return) { return g.uuid, nvml.SUCCESS },
		GetNameFunc: func() (string, nvml.Return) { return g.name, nvml.SUCCESS },
		GetUtilizationRatesFunc: func() (nvml.Utilization, nvml.Return) {
			if u := g.util.Load(); u >= 0 {
				return nvml.Utilization{Gpu: uint32(u)}, nvml.SUCCESS
			}
			return nvml.Utilization{}, nvml.ERROR_NOT_SUPPORTED
		},
		GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
			return nvml.Memory{Total: 81920 << 20, Used: 1024 << 20}, nvml.SUCCESS
		},
		GetPowerUsageFunc:              func() (uint32, nvml.Return) { return 61500, nvml.SUCCESS },
		GetComputeRunningProcessesFunc: func() ([]nvml.ProcessInfo, nvml.Return) { return make([]nvml.ProcessInfo, 2), nvml.SUCCESS },
		GetMigModeFunc: func() (int, int, nvml.Return) {
			if len(g.mig) > 0 {
				return nvml.DEVICE_MIG_ENABLE, nvml.DEVICE_MIG_ENABLE, nvml.SUCCESS
			}
			return nvml.DEVICE_MIG_DISABLE, nvml.DEVICE_MIG_DISABLE, nvml.SUCCESS
		},
		GetMaxMigDeviceCountFunc: func() (int, nvml.Return) { return 7, nvml.SUCCESS },
		GetMigDeviceHandleByIndexFunc: func(n int) (nvml.Device, nvml.Return) {
			if n < len(g.mig) {
				return g.mig[n], nvml.SUCCESS
			}
			return nil, nvml.ERROR_NOT_FOUND
		},
	}
}

func migDevice(uuid string) *mock.Device {
	return &mock.Device{
		GetUUIDFunc: func() (string, nvml.Return) { return uuid, nvml.SUCCESS },
		GetNameFunc: func() (string, nvml.Return) { return "NVIDIA H100 80GB HBM3 MIG 3g.40gb", nvml.SUCCESS },
		GetUtilizationRatesFunc: func() (nvml.Utilization, nvml.Return) {
			return nvml.Utilization{}, nvml.ERROR_NOT_SUPPORTED
		},
		GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
			return nvml.Memory{Total: 40192 << 20, Used: 512 << 20}, nvml.SUCCESS
		},
		GetPowerUsageFunc:              func() (uint32, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED },
		GetComputeRunningProcessesFunc: func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.SUCCESS },
	}
}

// fakeLib is go-nvml's mock Interface over fake GPUs; down makes every call
// answer as a driver that went away (a driver restart).
type fakeLib struct {
	mock.Interface
	down  atomic.Bool
	inits atomic.Int32
}

func newFakeLib(gpus ...*fakeGPU) *fakeLib {
	l := &fakeLib{}
	devs := make([]nvml.Device, len(gpus))
	for i, g := range gpus {
		devs[i] = g.device()
	}
	l.Interface = mock.Interface{
		InitFunc: func() nvml.Return {
			l.inits.Add(1)
			if l.down.Load() {
				return nvml.ERROR_DRIVER_NOT_LOADED
			}
			return nvml.SUCCESS
		},
		ShutdownFunc: func() nvml.Return { return nvml.SUCCESS },
		DeviceGetCountFunc: func() (int, nvml.Return) {
			if l.down.Load() {
				return 0, nvml.ERROR_UNINITIALIZED
			}
			return len(devs), nvml.SUCCESS
		},
		DeviceGetHandleByIndexFunc: func(n int) (nvml.Device, nvml.Return) { return devs[n], nvml.SUCCESS },
	}
	return l
}

func TestCollectWithMock(t *testing.T) {
	dir := t.TempDir()
	g0 := &fakeGPU{uuid: "GPU-a0", name: "NVIDIA A100-SXM4-80GB"}
	g1 := &fakeGPU{uuid: "GPU-h1", name: "NVIDIA H100 80GB HBM3", mig: []*mock.Device{migDevice("MIG-h1-0"), migDevice("MIG-h1-1")}}
	g1.util.Store(-1)
	lib := newFakeLib(g0, g1)

	t0 := time.Date(2026, 11, 23, 7, 58, 0, 0, time.UTC)
	var clock atomic.Int64
	clock.Store(t0.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	tick := make(chan time.Time)
	rounds := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- collect(ctx, Options{Dir: dir, Host: "gpu-a", Interval: time.Minute}, &lib.Interface, now, tick, rounds)
	}()
	<-rounds // the first round, at 07:58 (util 0)
	step := func(util int32) {
		clock.Add(int64(time.Minute))
		g0.util.Store(util)
		tick <- now()
		<-rounds
	}
	// 07:59: 5 %; then the driver restarts: 08:00 and 08:01 are lost; 08:02
	// it is back, 40 %.
	step(5)
	lib.down.Store(true)
	step(7)
	step(8)
	lib.down.Store(false)
	step(40)
	cancel() // SIGTERM
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if lib.inits.Load() < 3 {
		t.Errorf("NVML initialised %d times; want it started again after the restart", lib.inits.Load())
	}
	// Two files: 07:00 and 08:00 UTC, both finished (.csv) on shutdown.
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	want := []string{filepath.Join(dir, "nvml-gpu-a-20261123T0700Z.csv"), filepath.Join(dir, "nvml-gpu-a-20261123T0800Z.csv")}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", files, want)
	}
	b0, _ := os.ReadFile(want[0])
	b1, _ := os.ReadFile(want[1])
	wantRows := Header + "\n" +
		"2026-11-23T07:58:00.000Z, gpu-a, 0, NVIDIA A100-SXM4-80GB, GPU-a0, 0, 1024, 81920, 61.50, 2\n" +
		"2026-11-23T07:58:00.000Z, gpu-a, 1, NVIDIA H100 80GB HBM3, GPU-h1, [N/A], 1024, 81920, 61.50, 2\n" +
		"2026-11-23T07:58:00.000Z, gpu-a, 1, NVIDIA H100 80GB HBM3 MIG 3g.40gb, MIG-h1-0, [N/A], 512, 40192, [N/A], 0\n" +
		"2026-11-23T07:58:00.000Z, gpu-a, 1, NVIDIA H100 80GB HBM3 MIG 3g.40gb, MIG-h1-1, [N/A], 512, 40192, [N/A], 0\n"
	if !strings.HasPrefix(string(b0), wantRows) {
		t.Errorf("first file:\n%s\nwant it to start with\n%s", b0, wantRows)
	}

	// The files read back through the nvidia-smi parser, UTC whatever the zone.
	var utils []string
	for _, b := range [][]byte{b0, b1} {
		sink := &samples{}
		sum, err := ingest.Parse(t.Context(), bytes.NewReader(b), ingest.Options{Name: "spool.csv", Location: time.FixedZone("", 8*3600)}, sink)
		if err != nil || sum.Format != ingest.FormatNvidiaSMI {
			t.Fatalf("parse: %v %+v", err, sum)
		}
		for _, s := range sink.s {
			if s.UUID == "GPU-a0" {
				u := "N/A"
				if s.Util != nil {
					u = s.Time.Format("15:04") + "=" + strconv.FormatFloat(*s.Util, 'f', -1, 64)
				}
				utils = append(utils, u)
				if s.Host != "gpu-a" || *s.MemUsed != 1024 || *s.PowerWatt != 61.5 || s.Model != "A100-80GB" {
					t.Errorf("sample %+v", *s)
				}
			}
			if s.UUID == "MIG-h1-0" && (s.Util != nil || *s.MemTotal != 40192) {
				t.Errorf("MIG sample %+v", *s)
			}
		}
	}
	if got := strings.Join(utils, " "); got != "07:58=0 07:59=5 08:02=40" {
		t.Errorf("GPU-a0 readings %q: want 07:58=0 07:59=5 08:02=40 (08:00 and 08:01 lost to the restart)", got)
	}
}

type samples struct{ s []*finops.GPUSample }

func (x *samples) Billing(*finops.BillingLine) error { return nil }
func (x *samples) Sample(s *finops.GPUSample) error  { x.s = append(x.s, s); return nil }
func (x *samples) TaskRun(*finops.TaskRun) error     { return nil }

func TestCollectWithoutGPU(t *testing.T) {
	for _, c := range []struct {
		init  nvml.Return
		count int
		want  string
	}{
		{nvml.ERROR_LIBRARY_NOT_FOUND, 0, "libnvidia-ml.so.1 not found"},
		{nvml.ERROR_DRIVER_NOT_LOADED, 0, "driver is not loaded"},
		{nvml.SUCCESS, 0, "no NVIDIA GPU found"},
	} {
		lib := &mock.Interface{
			InitFunc:           func() nvml.Return { return c.init },
			ShutdownFunc:       func() nvml.Return { return nvml.SUCCESS },
			DeviceGetCountFunc: func() (int, nvml.Return) { return c.count, nvml.SUCCESS },
		}
		err := collect(t.Context(), Options{Dir: t.TempDir(), Host: "h"}, lib, time.Now, make(chan time.Time), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("init %v: %v, want %q", c.init, err, c.want)
		}
	}
	// On this machine (no NVIDIA driver in CI) the real library says so clearly.
	if _, err := os.Stat("/dev/nvidiactl"); err != nil {
		err := Collect(t.Context(), Options{Dir: t.TempDir(), Host: "h"})
		if err == nil || !strings.Contains(err.Error(), "nvml:") {
			t.Errorf("Collect without a GPU: %v", err)
		}
	}
}
