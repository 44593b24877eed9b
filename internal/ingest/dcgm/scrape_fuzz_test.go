package dcgm

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/finops-oss/finops/internal/ingest"
)

// FuzzParse feeds scrape files to the dcgm-exporter parser. Scrapes are read
// from hosts' disks, so any bytes must give samples within bounds or a
// *ingest.ParseError naming the file, never a panic.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "telemetry", "metrics.txt"))
	if err != nil {
		f.Fatal(err)
	}
	// Whole metrics.txt is 11 KB: its start and its Kubernetes/label-less
	// tail keep each exec cheap and still hold every shape it has.
	f.Add(b[:4096])
	f.Add(b[len(b)-4096:])
	for _, s := range []string{
		"# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\", UUID=\"GPU-aaaa\", modelName=\"NVIDIA H100 80GB HBM3\", hostname=\"node-a\"} 91 1793001600000\n",
		"DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"2\",UUID=\"GPU-cccc\",modelName=\"NVIDIA A800 80GB PCIe\",GPU_I_PROFILE=\"2g.20gb\",GPU_I_ID=\"3\",Hostname=\"node-b\"} 0.5\n" +
			"DCGM_FI_DEV_FB_USED{gpu=\"2\",UUID=\"GPU-cccc\"} 100\nDCGM_FI_DEV_FB_FREE{gpu=\"2\",UUID=\"GPU-cccc\"} 9e18\nDCGM_FI_DEV_FB_TOTAL{gpu=\"2\",UUID=\"GPU-cccc\"} NaN",
		"# TYPE DCGM_FI_DEV_POWER_USAGE counter\nDCGM_FI_DEV_POWER_USAGE{gpu=\"1\",instance=\"10.0.0.1:9400\"} +Inf -5\n",
		"DCGM_FI_DEV_FB_USED{uuid=\"20c56d28-0da5-6d26-a36a-e7af1ce2586e\",index=\"0\",hostname=\"h\"} 1e3\nDCGM_FI_DEV_FB_FREE{uuid=\"20c56d28-0da5-6d26-a36a-e7af1ce2586e\"} 2\nDCGM_FI_DEV_FB_RESERVED{uuid=\"20c56d28-0da5-6d26-a36a-e7af1ce2586e\"} 3\n",
		"",
		"timestamp, name, utilization.gpu [%]\n2026/07/14 08:12:38.696, NVIDIA H100, 5 %\n",
		// OpenMetrics (seconds, # EOF), a unit refused, an exemplar, an
		// OpenMetrics-only type.
		stampedScrape("1793001600", "1793001630.5", "# EOF\n"),
		stampedScrape("1793001600", "1793001630500", ""),
		"# TYPE x unknown\nx{UUID=\"GPU-a\"} 1 1793001600 # {a=\"b\"} 1\n# EOF\n",
		// nvidia_gpu_exporter.
		"nvidia_smi_gpu_info{index=\"0\",name=\"NVIDIA H100 80GB HBM3\",uuid=\"6d3f8a2e-0000-0000-0000-000000000000\"} 1\n" +
			"nvidia_smi_utilization_gpu_ratio{uuid=\"6d3f8a2e-0000-0000-0000-000000000000\"} 0.37\n" +
			"nvidia_smi_memory_used_bytes{uuid=\"6d3f8a2e-0000-0000-0000-000000000000\"} 2.0780679168e+10\n" +
			"nvidia_smi_power_draw_instant_watts{uuid=\"6d3f8a2e-0000-0000-0000-000000000000\"} 111.5\n",
	} {
		f.Add([]byte(s))
	}
	at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.FixedZone("", 8*3600))
	// NewCatalog builds a fresh catalog per call; one for all execs.
	cat := gpu.NewCatalog()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		// With and without a scrape time: the second is the path of a scrape
		// that must carry its own timestamps.
		for _, scrape := range []time.Time{at, {}} {
			sink := &recSink{}
			opt := Options{Name: "fuzz-scrape.prom", Host: "fallback-host", ScrapeTime: scrape, Interval: 30 * time.Second, Catalog: cat}
			sum, err := Parse(t.Context(), bytes.NewReader(data), opt, sink)
			if err != nil {
				var pe *ingest.ParseError
				if !errors.As(err, &pe) || pe.File != opt.Name || !strings.Contains(err.Error(), opt.Name) {
					t.Fatalf("error does not name the file: %v", err)
				}
				continue
			}
			// Every GPU series is a sample or a dropped reading (counted);
			// an nvidia_gpu_exporter GPU without measures is skipped (counted),
			// and a file of those only is refused.
			if sum.Rows != len(sink.samples) || sum.Rows+sum.SamplesDropped == 0 || sum.Format != Format && sum.Format != ExporterFormat || sum.PeriodEnd.Before(sum.PeriodStart) {
				t.Fatalf("summary %+v for %d samples", sum, len(sink.samples))
			}
			checkFuzzSamples(t, scrape, sink.samples)
		}
	})
}

// checkFuzzSamples checks the parsed samples: lines in order, times in UTC
// at the scrape time or in 2000–2100, utilization 0–100, no missing value,
// and one sample per GPU and time (a backfill file has many times).
func checkFuzzSamples(t *testing.T, scrape time.Time, samples []*finops.GPUSample) {
	t.Helper()
	keys := map[string]bool{}
	for i, s := range samples {
		// A sample's time is the scrape time or a timestamp of 2000–2100.
		if s.Line != i+1 || s.Time.IsZero() || s.Time.Location() != time.UTC || s.Host == "" && s.UUID == "" ||
			!s.Time.Equal(scrape) && (s.Time.Year() < 2000 || s.Time.Year() >= 2100) {
			t.Fatalf("sample %d: %+v", i, *s)
		}
		if s.Util != nil && !(*s.Util >= 0 && *s.Util <= 100) {
			t.Fatalf("sample %d: utilization %v", i, *s.Util)
		}
		for _, v := range []*float64{s.MemUsed, s.MemTotal, s.PowerWatt} {
			if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
				t.Fatalf("sample %d: a missing value leaked: %+v", i, *s)
			}
		}
		// One sample per GPU and time (a backfill file has many times).
		k := GPU{Host: s.Host, Index: s.Index, UUID: s.UUID}.Key() + "@" + s.Time.String()
		if keys[k] {
			t.Fatalf("GPU %s sampled twice at one time", k)
		}
		keys[k] = true
	}
}

// FuzzIdentify: any label set gives a GPU with a key, or ok = false.
func FuzzIdentify(f *testing.F) {
	f.Add("GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e", "0", "node-a", "10.0.0.1:9400", "NVIDIA H100 80GB HBM3", "3", "2g.20gb")
	f.Add("20c56d28-0da5-6d26-a36a-e7af1ce2586e", "", "", "[::1]:9400", "", "", "")
	f.Add("", "-1", "", "host", "Tesla T4", "", "")
	cat := gpu.NewCatalog()
	f.Fuzz(func(t *testing.T, uuid, index, host, instance, name, gi, profile string) {
		labels := map[string]string{"UUID": uuid, "gpu": index, "Hostname": host, "instance": instance,
			"modelName": name, "GPU_I_ID": gi, "GPU_I_PROFILE": profile}
		g, ok := Identify(labels)
		if !ok {
			return
		}
		if g.Index < -1 || g.UUID == "" && (g.Index < 0 || g.Host == "") || g.Key() == "" {
			t.Fatalf("Identify(%q) = %+v", labels, g)
		}
		cat.Model(g.Name)
	})
}
