package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The three full nvidia_gpu_exporter captures (testdata/telemetry, MIT): each
// holds an idle and a load --query-gpu section of 212 (L40S: 215) fields
// among -q, dmon, pmon and help output. Both sections of each parse, and the
// values are the ones in the capture (also in derived_query-gpu_subset.csv).
func TestNvidiaSMICaptures(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	type row struct {
		at                  string // host-local, as in the capture
		util                *float64
		used, total, powerW float64
		model               string
	}
	cases := []struct {
		file string
		// The captures were taken on UTC hosts: collected_at 08:12:38Z,
		// timestamp 08:12:38.696.
		idle, load row
	}{
		{"linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt",
			row{"2026/07/14 08:12:38.696", f(0), 0, 81559, 69.85, "H100"},
			row{"2026/07/14 08:12:53.353", f(100), 19818, 81559, 631.95, "H100"}},
		// MIG enabled: utilization.gpu is [N/A].
		{"linux-x86_64__nvidia-h100-mig__590.48.01.txt",
			row{"2026/07/14 09:00:27.792", nil, 59, 81559, 71.15, "H100"},
			row{"2026/07/14 09:00:44.579", nil, 11125, 81559, 433.78, "H100"}},
		{"linux-x86_64__nvidia-l40s__595.80.txt",
			row{"2026/07/03 08:33:38.737", f(100), 0, 46068, 144.97, "L40S"},
			row{"2026/07/03 08:33:53.415", f(9), 1235, 46068, 110.23, "L40S"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			raw := readFile(t, filepath.Join("..", "..", "testdata", "telemetry", c.file))
			secs, err := SplitCapture(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if len(secs) != 2 || secs[0].Name != "idle" || secs[1].Name != "load" {
				t.Fatalf("sections %d: %+v", len(secs), names(secs))
			}
			lines := strings.Split(string(raw), "\n")
			for i, want := range []row{c.idle, c.load} {
				sec := secs[i]
				if !strings.HasPrefix(lines[sec.Line-1], "timestamp, driver_version") {
					t.Errorf("%s: line %d is not the header: %.40q", sec.Name, sec.Line, lines[sec.Line-1])
				}
				sink := &recSink{}
				sum, err := Parse(t.Context(), bytes.NewReader(sec.CSV), Options{Name: c.file, Host: "capture"}, sink)
				if err != nil {
					t.Fatalf("%s: %v", sec.Name, err)
				}
				if sum.Format != FormatNvidiaSMI || len(sink.samples) != 1 || len(sum.Rejected) != 0 {
					t.Fatalf("%s: format %q, %d samples, rejected %v", sec.Name, sum.Format, len(sink.samples), sum.Rejected)
				}
				s := sink.samples[0]
				at, _ := time.Parse("2006/01/02 15:04:05.000", want.at)
				if !s.Time.Equal(at) || s.Host != "capture" || s.Index != 0 || s.UUID != "GPU-00000000-0000-0000-0000-000000000000" || s.Model != want.model {
					t.Errorf("%s: %+v", sec.Name, *s)
				}
				if (s.Util == nil) != (want.util == nil) || s.Util != nil && *s.Util != *want.util {
					t.Errorf("%s: util %v, want %v", sec.Name, s.Util, want.util)
				}
				if *s.MemUsed != want.used || *s.MemTotal != want.total || *s.PowerWatt != want.powerW {
					t.Errorf("%s: used %v total %v power %v, want %v %v %v", sec.Name, *s.MemUsed, *s.MemTotal, *s.PowerWatt,
						want.used, want.total, want.powerW)
				}
			}
		})
	}
}

func names(secs []CaptureSection) []string {
	var out []string
	for _, s := range secs {
		out = append(out, s.Name)
	}
	return out
}

// The captures in ../shared/samples are the same bytes as testdata/telemetry.
func TestCapturesMatchSharedSamples(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "samples")
	for _, p := range [][2]string{
		{"nvidia-smi/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt", "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"},
		{"nvidia-smi/linux-x86_64__nvidia-h100-mig__590.48.01.txt", "linux-x86_64__nvidia-h100-mig__590.48.01.txt"},
		{"nvidia-smi/linux-x86_64__nvidia-l40s__595.80.txt", "linux-x86_64__nvidia-l40s__595.80.txt"},
		{"dcgm/metrics.txt", "metrics.txt"},
	} {
		shared, err := os.ReadFile(filepath.Join(dir, p[0]))
		if err != nil {
			t.Skipf("../shared/samples (beside the repository) not here (%v): the copies in testdata/telemetry are tested instead", err)
		}
		if !bytes.Equal(shared, readFile(t, filepath.Join("..", "..", "testdata", "telemetry", p[1]))) {
			t.Errorf("testdata/telemetry/%s differs from shared/samples/%s", p[1], p[0])
		}
	}
}
