package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/gpu"
)

// seed adds the start of testdata files to a fuzz corpus; whole large files
// would make every mutation slow.
func seed(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(testdata(n))
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 4096 {
			b = b[:4096]
		}
		f.Add(b)
	}
}

func seedBad(f *testing.F) {
	entries, _ := os.ReadDir(testdata("bad"))
	for _, e := range entries {
		seed(f, filepath.Join("bad", e.Name()))
	}
}

// fuzzParse parses data as format (and detected) and checks what comes out.
func fuzzParse(t *testing.T, data []byte, format string) {
	for _, fm := range []string{format, ""} {
		sink := &recSink{}
		opt := Options{Name: "fuzz.csv", Format: fm, MaxBadRows: 1 << 20, Location: time.FixedZone("", 8*3600)}
		sum, err := Parse(t.Context(), bytes.NewReader(data), opt, sink)
		if err != nil {
			continue
		}
		if n := len(sink.lines) + len(sink.samples) + len(sink.tasks); sum.Rows != n {
			t.Fatalf("summary says %d rows, sink got %d", sum.Rows, n)
		}
		for _, l := range sink.lines {
			if l.ChargeEnd.Before(l.ChargeStart) || l.ChargeStart.Location() != time.UTC {
				t.Fatalf("line %d: period %v – %v", l.Line, l.ChargeStart, l.ChargeEnd)
			}
			if l.GPUModel != "" && (l.GPUCount < 1 || l.GPUCount > gpu.MaxPerMachine) {
				t.Fatalf("line %d: %d × %q", l.Line, l.GPUCount, l.GPUModel)
			}
		}
		for _, s := range sink.samples {
			// A GPU is told apart by its uuid, index or (neither) PCI bus id.
			if s.Util != nil && (*s.Util < 0 || *s.Util > 100) || s.Time.Location() != time.UTC || s.Host == "" ||
				s.UUID == "" && s.Index < 0 && s.BusID == "" {
				t.Fatalf("sample %+v", *s)
			}
		}
		for _, r := range sink.tasks {
			if !r.End.After(r.Start) {
				t.Fatalf("task %+v", *r)
			}
		}
	}
}

func FuzzParseFOCUS(f *testing.F) {
	seed(f, "focus_sample.csv", "focus_features.csv", "focus-spec-examples/commitment_discount_usage_scenario_3.csv",
		"focus_0.5.csv", "focus-validator/all_pass_0.5.csv")
	seedBad(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatFOCUS) })
}

func FuzzParseNvidiaSMI(f *testing.F) {
	seed(f, "derived_query-gpu_subset.csv", "smi_shanghai.csv", "smi_noheader.csv", "smi_logger_h100x2.csv", "bad/smi_as_focus.csv",
		"smi_logger_h100x2_busid.csv", "derived_query-gpu_power.csv",
		"smi_hpc_index_first.csv", "smi_loop_repeated_header.csv", "smi_one_gpu_no_ids.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatNvidiaSMI) })
}

func FuzzParseRental(f *testing.F) {
	seed(f, "autodl_sample.csv", "bad/not_utf8_header.csv", "rental/autodl_gpu_count.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatRental) })
}

func FuzzParseTasks(f *testing.F) {
	seed(f, "tasks_sample.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatTasks) })
}

// FuzzParseParquet feeds mutated Parquet files (the DuckDB-written fixtures,
// whole, and cut) to Parse: every outcome is a parse or a refusal, never a
// panic, and a parse delivers what its summary counts.
func FuzzParseParquet(f *testing.F) {
	for _, n := range []string{"parquet/bad_cost_text.parquet", "parquet/bad_cur2_cost_text.parquet",
		"parquet/cur2/exports/gpu-export/data/BILLING_PERIOD=2026-01/gpu-export-00001.snappy.parquet"} {
		b, err := os.ReadFile(testdata(n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sink := &recSink{}
		sum, err := Parse(t.Context(), bytes.NewReader(data), Options{Name: "fuzz.parquet", MaxBadRows: 1 << 20}, sink)
		if err == nil && sum.Rows != len(sink.lines)+len(sink.samples)+len(sink.tasks) {
			t.Fatalf("summary says %d rows, sink got %d", sum.Rows, len(sink.lines)+len(sink.samples)+len(sink.tasks))
		}
	})
}
