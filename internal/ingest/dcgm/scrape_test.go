package dcgm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

type recSink struct{ samples []*finops.GPUSample }

func (s *recSink) Billing(*finops.BillingLine) error { return nil }
func (s *recSink) Sample(x *finops.GPUSample) error  { s.samples = append(s.samples, x); return nil }
func (s *recSink) TaskRun(*finops.TaskRun) error     { return nil }

func eq(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// The real scrape (DataDog/integrations-core fixture, testdata/telemetry/metrics.txt):
// a Tesla T4 with DCGM 460, one with DCGM 470 and no utilization field, an
// A10G on Kubernetes with only DRAM_ACTIVE, and a label-less dummy tail.
func TestParseRealScrape(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "..", "testdata", "telemetry", "metrics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	sink := &recSink{}
	sum, err := Parse(t.Context(), f, Options{Name: "metrics.txt", ScrapeTime: at, Interval: 30 * time.Second}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Format != Format || sum.Kind != ingest.KindUtilization || sum.Rows != 3 || sum.SampleInterval != 30*time.Second {
		t.Fatalf("summary %+v", sum)
	}
	want := []finops.GPUSample{
		// grep 424773df46e0: GPU_UTIL 0, FB_USED 0, FB_FREE 15109, POWER_USAGE 8.969000.
		{Line: 1, Host: "424773df46e0", Index: 0, UUID: "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e", Model: "T4",
			Util: new(0.0), MemUsed: new(0.0), MemTotal: new(15109.0), PowerWatt: new(8.969)},
		// grep 551bdf382151: FB_TOTAL 15109, no utilization, no power usage.
		{Line: 2, Host: "551bdf382151", Index: 0, UUID: "GPU-9ef1b6d0-3643-5dd7-b823-c0ec20dcf2d5", Model: "T4",
			MemTotal: new(15109.0)},
		{Line: 3, Host: "ip-11111", Index: 0, UUID: "GPU-abc", Model: "A10G"},
	}
	if len(sink.samples) != len(want) {
		t.Fatalf("%d samples, want %d", len(sink.samples), len(want))
	}
	for i, w := range want {
		g := sink.samples[i]
		if g.Line != w.Line || g.Host != w.Host || g.Index != w.Index || g.UUID != w.UUID || g.Model != w.Model ||
			!g.Time.Equal(at) || !eq(g.Util, w.Util) || !eq(g.MemUsed, w.MemUsed) || !eq(g.MemTotal, w.MemTotal) ||
			!eq(g.PowerWatt, w.PowerWatt) {
			t.Errorf("sample %d = %+v, want %+v", i, *g, w)
		}
	}
}

func TestParseScrapeShapes(t *testing.T) {
	// README style (spaces after commas), the new lower-case hostname, a MIG
	// GPU, PROF preferred to GPU_UTIL, a leaked blank sentinel, timestamps.
	in := `# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0", UUID="GPU-aaaa", device="nvidia0", modelName="NVIDIA H100 80GB HBM3", hostname="node-a"} 91 1793001600000
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-bbbb",modelName="NVIDIA A100-SXM4-80GB",Hostname="node-a"} 50 1793001600000
# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge
DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",UUID="GPU-aaaa",modelName="NVIDIA H100 80GB HBM3",hostname="node-a"} 0.255 1793001600000
DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="2",UUID="GPU-cccc",modelName="NVIDIA A800 80GB PCIe",GPU_I_PROFILE="2g.20gb",GPU_I_ID="3",Hostname="node-b"} 0.5 1793001600000
DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="2",UUID="GPU-cccc",modelName="NVIDIA A800 80GB PCIe",GPU_I_PROFILE="1g.10gb",GPU_I_ID="9",Hostname="node-b"} 0 1793001600000
# TYPE DCGM_FI_DEV_MEMORY_TEMP gauge
DCGM_FI_DEV_MEMORY_TEMP{gpu="1",UUID="GPU-bbbb",Hostname="node-a"} 9223372036854775794 1793001600000
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-bbbb",Hostname="node-a"} 9223372036854775794 1793001600000
`
	sink := &recSink{}
	if _, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "s.prom"}, sink); err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(1793001600000)
	got := map[string]*finops.GPUSample{}
	for _, s := range sink.samples {
		got[s.UUID] = s
		if !s.Time.Equal(at) {
			t.Errorf("%s: time %v", s.UUID, s.Time)
		}
	}
	if s := got["GPU-aaaa"]; s == nil || *s.Util != 25.5 || s.Host != "node-a" || s.Model != "H100" {
		t.Errorf("GPU-aaaa: %+v (PROF 0.255 → 25.5 wins over GPU_UTIL 91)", s)
	}
	if s := got["GPU-bbbb"]; s == nil || *s.Util != 50 || s.PowerWatt != nil {
		t.Errorf("GPU-bbbb: %+v (sentinel power is missing, not 9.2e18)", s)
	}
	if s := got["GPU-cccc/mig-3"]; s == nil || *s.Util != 50 || s.Index != 2 || s.Host != "node-b" {
		t.Errorf("MIG 3: %+v", s)
	}
	if s := got["GPU-cccc/mig-9"]; s == nil || *s.Util != 0 {
		t.Errorf("MIG 9: %+v", s)
	}

	for _, bad := range []struct{ name, in, want string }{
		{"no time", `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 1` + "\n", "no timestamps"},
		{"no GPUs", "DCGM_FI_DEV_GPU_UTIL 1 1793001600000\n", "no GPU series"},
		{"not exposition", "timestamp, name\n2026/01/01 00:00:00, x\n", "not a Prometheus text exposition"},
	} {
		_, err := Parse(t.Context(), strings.NewReader(bad.in), Options{Name: "bad.prom"}, &recSink{})
		if err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "bad.prom") {
			t.Errorf("%s: error %v, want %q", bad.name, err, bad.want)
		}
	}
}

func TestIdentify(t *testing.T) {
	for _, c := range []struct {
		labels map[string]string
		want   GPU
		ok     bool
	}{
		// nvidia_gpu_exporter: uuid without GPU-, host from instance.
		{map[string]string{"uuid": "6d5c0f2e-0000-0000-0000-00000000abcd", "instance": "gpu-b:9835", "name": "NVIDIA L40S"},
			GPU{Host: "gpu-b", Index: -1, UUID: "GPU-6d5c0f2e-0000-0000-0000-00000000abcd", Name: "NVIDIA L40S"}, true},
		{map[string]string{"gpu": "3", "Hostname": "h"}, GPU{Host: "h", Index: 3}, true},
		{map[string]string{"gpu": "3"}, GPU{}, false},
		{map[string]string{"nvswitch": "0", "Hostname": "h"}, GPU{}, false},
	} {
		g, ok := Identify(c.labels)
		if ok != c.ok || g != c.want {
			t.Errorf("Identify(%v) = %+v, %v; want %+v, %v", c.labels, g, ok, c.want, c.ok)
		}
	}
	tl := DefaultTaskLabels()
	if task, team, kind := tl.Of(map[string]string{"exported_pod": "train-1", "exported_namespace": "nlp", "container": "c"}); task != "train-1" || team != "nlp" || kind != "c" {
		t.Errorf("task labels: %q %q %q", task, team, kind)
	}
}
