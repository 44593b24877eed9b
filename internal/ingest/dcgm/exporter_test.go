package dcgm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/gpu"
	"github.com/finops-oss/finops/internal/ingest"
)

// TestParseNvidiaGPUExporter reads real /metrics answers of
// utkuozdemir/nvidia_gpu_exporter (testdata/telemetry/*.metrics, the
// exporter's integration goldens under load) as telemetry. The expected
// values are the files' series, converted by hand:
//
//	H100:  nvidia_smi_utilization_gpu_ratio 1 → 100 %; memory_used_bytes
//	       2.0780679168e+10 / 1,048,576 = 19,818 MiB; memory_total_bytes
//	       8.5520809984e+10 / 1,048,576 = 81,559 MiB; power_draw_average_watts
//	       631.95 (instant 625.68 is not taken).
//	MIG:   no utilization series (nvidia-smi says [N/A] under MIG); used
//	       1.1665408e+10 / 1,048,576 = 11,125 MiB; average 433.78 W, not the
//	       instant 447.35 W.
//	2080S: ratio 0.08 → 8 %; used 8.58783744e+08 / 1,048,576 = 819 MiB;
//	       total 8.589934592e+09 / 1,048,576 = 8,192 MiB; no average power on
//	       this GeForce, so instant 111.5 W.
//
// The model comes from nvidia_smi_gpu_info's name label (the catalog knows
// the H100; the RTX 2080 SUPER keeps its name), the GPU key from the uuid
// label with GPU- put back, the index from gpu_info's index label.
func TestParseNvidiaGPUExporter(t *testing.T) {
	const uuid = "GPU-00000000-0000-0000-0000-000000000000" // masked by the capture tool
	for _, c := range []struct {
		file        string
		model       string
		util        *float64
		used, total float64
		power       float64
	}{
		{"linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.metrics", "H100", new(100.0), 19818, 81559, 631.95},
		{"linux-x86_64__nvidia-h100-mig__590.48.01__load.metrics", "H100", nil, 11125, 81559, 433.78},
		{"linux-x86_64__nvidia-geforce-rtx-2080-super__595.71.05__load.metrics", "NVIDIA GeForce RTX 2080 SUPER", new(8.0), 819, 8192, 111.5},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "..", "testdata", "telemetry", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
			sink := &recSink{}
			sum, err := Parse(t.Context(), f, Options{Name: c.file, Host: "gpu-b", ScrapeTime: at, Catalog: gpu.NewCatalog()}, sink)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Format != ExporterFormat || sum.Rows != 1 || len(sink.samples) != 1 {
				t.Fatalf("summary %+v, %d samples; want one %s sample", sum, len(sink.samples), ExporterFormat)
			}
			s := sink.samples[0]
			if s.UUID != uuid || s.Index != 0 || s.Host != "gpu-b" || s.Model != c.model || !s.Time.Equal(at) {
				t.Errorf("identity %+v; want %s, index 0, host gpu-b, model %q", *s, uuid, c.model)
			}
			if !near(s.Util, c.util) || !near(s.MemUsed, &c.used) || !near(s.MemTotal, &c.total) || !near(s.PowerWatt, &c.power) {
				t.Errorf("util %v used %v total %v power %v; want %v %v %v %v", deref(s.Util), deref(s.MemUsed),
					deref(s.MemTotal), deref(s.PowerWatt), deref(c.util), c.used, c.total, c.power)
			}
		})
	}
}

// near compares within a billionth (a ratio × 100 need not be exact).
func near(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	d := *a - *b
	return d < 1e-9 && d > -1e-9
}

// An nvidia_gpu_exporter scrape that names GPUs but measures nothing of
// them is refused, never imported as GPUs without data; one that measures
// some GPUs imports those and counts the others skipped.
func TestParseNvidiaGPUExporterEmpty(t *testing.T) {
	info := `nvidia_smi_gpu_info{index="0",name="NVIDIA H100 80GB HBM3",pci_bus_id="00000000:00:09.0",uuid="6d3f8a2e-0000-0000-0000-000000000000"} 1` + "\n" +
		`nvidia_smi_gpu_info{index="1",name="NVIDIA H100 80GB HBM3",pci_bus_id="00000000:00:0A.0",uuid="9b1c47d0-0000-0000-0000-000000000000"} 1` + "\n" +
		`nvidia_smi_temperature_gpu{uuid="6d3f8a2e-0000-0000-0000-000000000000"} 31` + "\n"
	at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	_, err := Parse(t.Context(), strings.NewReader(info), Options{Name: "smi.prom", ScrapeTime: at}, &recSink{})
	var pe *ingest.ParseError
	if !errors.As(err, &pe) || pe.File != "smi.prom" || pe.Field != SMIUtil || !strings.Contains(err.Error(), "nothing to import") {
		t.Fatalf("error %v, want a refusal naming smi.prom and %s", err, SMIUtil)
	}
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(info+`nvidia_smi_utilization_gpu_ratio{uuid="9b1c47d0-0000-0000-0000-000000000000"} 0.37`+"\n"),
		Options{Name: "smi.prom", ScrapeTime: at}, sink)
	if err != nil {
		t.Fatal(err)
	}
	// GPU 1 measured (0.37 → 37 %), GPU 0 only named: skipped.
	if sum.Rows != 1 || sum.Skipped != 1 || sink.samples[0].Index != 1 || !near(sink.samples[0].Util, new(37.0)) {
		t.Errorf("summary %+v, samples %+v; want GPU 1 at 37 %% and one skipped", sum, sink.samples)
	}
}

// TestUtilizationPrecedence pins which utilization a scrape's sample takes
// when a GPU reports more than one (docs/METRICS.md, "Which utilization"):
// DCGM_FI_PROF_GR_ENGINE_ACTIVE × 100 first, then DCGM_FI_DEV_GPU_UTIL, then
// nvidia_smi_utilization_gpu_ratio × 100; the others are ignored. A missing
// or out-of-range first choice falls to the next valid one.
func TestUtilizationPrecedence(t *testing.T) {
	const id = `{gpu="0",UUID="GPU-a",Hostname="h"} `
	const ts = " 1793001600000\n"
	for _, c := range []struct {
		name, in string
		want     *float64
	}{
		// 0.255 × 100 = 25.5, not GPU_UTIL's 91.
		{"GR_ENGINE_ACTIVE over GPU_UTIL", GREngineActive + id + "0.255" + ts + GPUUtil + id + "91" + ts, new(25.5)},
		{"GR_ENGINE_ACTIVE 0 over GPU_UTIL 100", GREngineActive + id + "0" + ts + GPUUtil + id + "100" + ts, new(0.0)},
		{"GPU_UTIL alone", GPUUtil + id + "91" + ts, new(91.0)},
		{"GPU_UTIL over the nvidia-smi ratio", GPUUtil + id + "91" + ts + SMIUtil + id + "0.5" + ts, new(91.0)},
		{"GR_ENGINE_ACTIVE missing: GPU_UTIL", GREngineActive + id + "NaN" + ts + GPUUtil + id + "91" + ts, new(91.0)},
		{"GR_ENGINE_ACTIVE blank sentinel: GPU_UTIL", GREngineActive + id + "9223372036854775794" + ts + GPUUtil + id + "91" + ts, new(91.0)},
		// 1.5 × 100 = 150 % is no reading; GPU_UTIL's 60 is.
		{"GR_ENGINE_ACTIVE out of range: GPU_UTIL", GREngineActive + id + "1.5" + ts + GPUUtil + id + "60" + ts, new(60.0)},
		{"nvidia-smi ratio alone", SMIUtil + id + "0.5" + ts, new(50.0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			sink := &recSink{}
			if _, err := Parse(t.Context(), strings.NewReader(c.in), Options{Name: "s.prom"}, sink); err != nil {
				t.Fatal(err)
			}
			if len(sink.samples) != 1 || !near(sink.samples[0].Util, c.want) {
				t.Fatalf("samples %+v, want one with utilization %v", sink.samples, deref(c.want))
			}
		})
	}
}
