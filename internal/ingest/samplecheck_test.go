package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// TestUtilOutOfRange: nvidia-smi logs (and the NVML spool, read as one)
// follow the rule of every telemetry source: a utilization outside 0–100 %
// (or NaN, Inf) is no sample, dropped and counted, not a refused row.
func TestUtilOutOfRange(t *testing.T) {
	in := "timestamp, name, index, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n" +
		"2026/11/02 08:00:00.000, NVIDIA L4, 0, GPU-1, -7 %, 10 MiB, 100 MiB\n" +
		"2026/11/02 08:01:00.000, NVIDIA L4, 0, GPU-1, 150 %, 10 MiB, 100 MiB\n" +
		"2026/11/02 08:02:00.000, NVIDIA L4, 0, GPU-1, NaN %, 10 MiB, 100 MiB\n" +
		"2026/11/02 08:03:00.000, NVIDIA L4, 0, GPU-1, Inf %, 10 MiB, 100 MiB\n" +
		"2026/11/02 08:04:00.000, NVIDIA L4, 0, GPU-1, 0 %, 10 MiB, 100 MiB\n" +
		"2026/11/02 08:05:00.000, NVIDIA L4, 0, GPU-1, 100 %, 100 MiB, 100 MiB\n"
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "gpu.log"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: rows 2–5 dropped (−7, 150, NaN, Inf), rows 6 and 7 kept.
	if sum.SamplesDropped != 4 || sum.Rows != 2 || len(sum.Rejected) != 0 || len(sink.samples) != 2 ||
		*sink.samples[0].Util != 0 || *sink.samples[1].Util != 100 || sink.samples[0].Line != 6 {
		t.Errorf("dropped %d, rows %d, rejected %d, samples %d", sum.SamplesDropped, sum.Rows, len(sum.Rejected), len(sink.samples))
	}
}

// TestMemoryAboveTotal: memory.used above memory.total is a bad row naming
// file, line and field, in an nvidia-smi log and in an NVML spool file.
func TestMemoryAboveTotal(t *testing.T) {
	for _, c := range []struct{ name, in, field string }{
		{"nvidia-smi", "timestamp, name, index, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n" +
			"2026/11/02 08:00:00.000, NVIDIA L4, 0, GPU-1, 5 %, 10 MiB, 100 MiB\n" +
			"2026/11/02 08:01:00.000, NVIDIA L4, 0, GPU-1, 5 %, 23035 MiB, 23034 MiB\n", "memory.used [MiB]"},
		{"NVML spool", "timestamp, hostname, index, name, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], compute_apps\n" +
			"2026-11-02T08:00:00Z, h, 0, NVIDIA L4, GPU-1, 5, 10, 100, 30, 0\n" +
			"2026-11-02T08:01:00Z, h, 0, NVIDIA L4, GPU-1, 5, 23035, 23034, 30, 0\n", "memory.used [MiB]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(t.Context(), strings.NewReader(c.in), Options{Name: "gpu.log", Format: FormatNvidiaSMI}, &countSink{})
			wantErrParts(t, err, "gpu.log:3", c.field, "23035", "23034", "above the memory total")
		})
	}
}

// TestGPULineDefinition: ingest counts as GPU lines exactly the lines the
// report spreads over GPU-minutes (IsGPUUsage); a zero-length line and a
// line of zero usage are neither.
func TestGPULineDefinition(t *testing.T) {
	in := "ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,ChargeCategory,ConsumedQuantity,x_InstanceType\n" +
		"2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,40,USD,Usage,1,p4d.24xlarge\n" + // a GPU line
		"2026-11-02T01:00:00Z,2026-11-02T01:00:00Z,5,USD,Usage,1,p4d.24xlarge\n" + // zero-length
		"2026-11-02T02:00:00Z,2026-11-02T03:00:00Z,7,USD,Usage,0,p4d.24xlarge\n" + // zero usage
		"2026-11-02T03:00:00Z,2026-11-02T04:00:00Z,9,USD,Usage,,p4d.24xlarge\n" // usage not given: a GPU line
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "b.csv"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, false, false, true}
	n := 0
	for i, l := range sink.lines {
		if l.IsGPUUsage() != want[i] {
			t.Errorf("line %d: IsGPUUsage %v, want %v", l.Line, l.IsGPUUsage(), want[i])
		}
		if l.IsGPUUsage() {
			n++
		}
	}
	if sum.GPULines != 2 || n != 2 {
		t.Errorf("GPULines %d, IsGPUUsage %d; want 2", sum.GPULines, n)
	}
	zero := decimal.Zero
	l := finops.BillingLine{ChargeCategory: finops.ChargeUsage, GPUModel: "A100-40GB", GPUCount: 8, ChargeStart: time.Unix(0, 0),
		ChargeEnd: time.Unix(3600, 0), UsageQuantity: &zero}
	if l.IsGPUUsage() {
		t.Error("a line of zero usage is GPU usage")
	}
}
