package dcgm

import (
	"strings"
	"testing"
)

// TestScrapeUtilOutOfRange: a utilization outside 0–100 % after the PROF
// ratio's ×100 is no sample, dropped and counted, never clamped — the rule
// Prometheus and nvidia-smi follow too (finops.ValidUtil). A NaN is the
// exporter having no value: a sample without utilization, as in Prometheus.
func TestScrapeUtilOutOfRange(t *testing.T) {
	const ts = " 1793001600000\n"
	in := "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n" +
		`DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",Hostname="h"} -7` + ts +
		`DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",Hostname="h"} 150` + ts +
		`DCGM_FI_DEV_GPU_UTIL{gpu="2",UUID="GPU-c",Hostname="h"} NaN` + ts +
		`DCGM_FI_DEV_GPU_UTIL{gpu="3",UUID="GPU-d",Hostname="h"} 100` + ts +
		`DCGM_FI_DEV_GPU_UTIL{gpu="4",UUID="GPU-e",Hostname="h"} 40` + ts +
		"# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n" +
		`DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="3",UUID="GPU-d",Hostname="h"} 1.5` + ts + // 150 %, but GPU_UTIL 100 is valid
		`DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="5",UUID="GPU-f",Hostname="h"} 1.2` + ts + // 120 %: dropped
		`DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="6",UUID="GPU-g",Hostname="h"} 0` + ts // 0 % is a sample
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "s.prom"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: GPU-a (−7), GPU-b (150), GPU-f (120) dropped; GPU-d 100
	// (from GPU_UTIL), GPU-e 40 and GPU-g 0 kept; GPU-c (NaN) kept with no
	// utilization.
	want := map[string]float64{"GPU-d": 100, "GPU-e": 40, "GPU-g": 0}
	if sum.SamplesDropped != 3 || len(sink.samples) != len(want)+1 {
		t.Fatalf("%d dropped, %d samples; want 3 and %d", sum.SamplesDropped, len(sink.samples), len(want)+1)
	}
	for _, s := range sink.samples {
		if s.UUID == "GPU-c" {
			if s.Util != nil {
				t.Errorf("GPU-c: util %v, want none (NaN is no value)", *s.Util)
			}
			continue
		}
		if w, ok := want[s.UUID]; !ok || s.Util == nil || *s.Util != w {
			t.Errorf("%s: util %v, want %v", s.UUID, s.Util, w)
		}
	}
}

// TestScrapeMemoryAboveTotal: FB_USED above FB_TOTAL refuses the scrape,
// naming the file, the metric and the GPU.
func TestScrapeMemoryAboveTotal(t *testing.T) {
	in := `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",Hostname="h"} 10 1793001600000
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a",Hostname="h"} 90000 1793001600000
DCGM_FI_DEV_FB_TOTAL{gpu="0",UUID="GPU-a",Hostname="h"} 81559 1793001600000
`
	_, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "s.prom"}, &recSink{})
	for _, w := range []string{"s.prom", FBUsed, "GPU-a", "90000", "81559"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
}

// TestScrapeSizeCap: a file far larger than one scrape (2 MiB of valid
// series against a cap of 1 MiB here; 64 MiB by default) is refused naming
// the file and the cap, before the text parser holds it all in memory; one
// under the cap is read.
func TestScrapeSizeCap(t *testing.T) {
	line := `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",Hostname="h"} 40 1793001600000` + "\n"
	big := strings.Repeat(line, (2<<20)/len(line))
	_, err := Parse(t.Context(), strings.NewReader(big), Options{Name: "big.prom", MaxBytes: 1 << 20}, &recSink{})
	if err == nil || !strings.Contains(err.Error(), "big.prom") || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("a 2 MiB scrape: %v, want a refusal naming big.prom and the 1 MiB cap", err)
	}
	if _, err := Parse(t.Context(), strings.NewReader(line), Options{Name: "one.prom", MaxBytes: 1 << 20}, &recSink{}); err != nil {
		t.Errorf("one scrape: %v", err)
	}
}
