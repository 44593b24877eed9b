package ingest

import (
	"testing"
)

// TestNvidiaSMIVGPUName: nvidia-smi in a vGPU guest prints the profile as
// the GPU's name; the log's samples are the A100-40GB's 10/40 slice, never
// the whole card (issue #34; on main: model A100-40GB, no slice).
func TestNvidiaSMIVGPUName(t *testing.T) {
	in := "timestamp, index, uuid, name, utilization.gpu [%], memory.total [MiB], memory.used [MiB]\n" +
		"2026/11/02 08:00:00.000, 0, GPU-4b1f2c3d-8e9a-11ee-b5a7-0242ac120002, GRID A100-10C, 37 %, 10239 MiB, 4096 MiB\n" +
		"2026/11/02 08:00:30.000, 0, GPU-4b1f2c3d-8e9a-11ee-b5a7-0242ac120002, GRID A100-10C, 41 %, 10239 MiB, 4100 MiB\n"
	sum, sink, err := parseString(in, "vm-train-07.csv")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Format != FormatNvidiaSMI || len(sink.samples) != 2 {
		t.Fatalf("format %q, %d samples; want 2 nvidia-smi samples", sum.Format, len(sink.samples))
	}
	for _, s := range sink.samples {
		// 10 GB of the A100 PCIe's 40: a quarter; compute time-sliced.
		if s.Model != "A100-40GB" || s.Slice == nil || s.Slice.Kind != "vGPU" || s.Slice.Profile != "A100-10C" ||
			s.Slice.MemoryFraction != 0.25 || s.Slice.ComputeFraction != 0 || s.Slice.Cards() != 0.25 {
			t.Errorf("line %d: model %q slice %+v, want the A100-40GB's vGPU A100-10C worth 1/4 of a card", s.Line, s.Model, s.Slice)
		}
	}
}
