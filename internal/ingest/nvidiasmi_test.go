package ingest

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

func TestNvidiaSMISubset(t *testing.T) {
	name := "derived_query-gpu_subset.csv"
	// The RTX 2080 capture was taken at 08:26:34Z by a host whose clock read
	// 10:26:34.977: UTC+2.
	sum, sink := mustParse(t, name, Options{Host: "capture", Location: time.FixedZone("", 2*3600)})
	if sum.Format != FormatNvidiaSMI || sum.Kind != KindUtilization {
		t.Errorf("format %q kind %q", sum.Format, sum.Kind)
	}

	// The test's own reading of the file: split on ", ", first word of each value.
	lines := strings.Split(strings.TrimRight(string(readFile(t, testdata(name))), "\n"), "\n")
	if sum.Rows != len(lines)-1 || len(sink.samples) != len(lines)-1 {
		t.Fatalf("rows %d, want %d", sum.Rows, len(lines)-1)
	}
	times := checkSMISubsetRows(t, lines, sink.samples)
	checkSMISubsetNamedRows(t, sink.samples)
	// The captures mask every UUID to the same value, so all rows are one GPU;
	// its forward steps are the sampling intervals.
	var steps []time.Duration
	for i := 1; i < len(times); i++ {
		if d := times[i].Sub(times[i-1]); d > 0 {
			steps = append(steps, d)
		}
	}
	slices.Sort(steps)
	want := steps[len(steps)/2]
	if len(steps)%2 == 0 {
		want = (steps[len(steps)/2-1] + want) / 2
	}
	if sum.SampleInterval != want {
		t.Errorf("SampleInterval %v, want %v", sum.SampleInterval, want)
	}
}

// smiNum is the test's own reading of an nvidia-smi value: the first word
// as a number, nil for "[N/A]" and the like.
func smiNum(t *testing.T, s string) *float64 {
	t.Helper()
	if strings.HasPrefix(s, "[") {
		return nil
	}
	f, err := strconv.ParseFloat(strings.Fields(s)[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	return &f
}

// checkSMISubsetRows compares each sample with the test's own split of its
// line (lines[0] is the header) and returns the lines' times in UTC, the
// capture's clock being UTC+2.
func checkSMISubsetRows(t *testing.T, lines []string, samples []*finops.GPUSample) []time.Time {
	t.Helper()
	var times []time.Time
	for i, line := range lines[1:] {
		f := strings.Split(line, ", ")
		s := samples[i]
		local, err := time.ParseInLocation("2006/01/02 15:04:05.000", f[0], time.FixedZone("", 2*3600))
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, local.UTC())
		if s.Line != i+2 || !s.Time.Equal(local) || s.Host != "capture" || s.UUID != f[4] || strconv.Itoa(s.Index) != f[3] {
			t.Errorf("line %d: %+v", i+2, *s)
		}
		for _, c := range []struct {
			what string
			got  *float64
			text string
		}{{"util", s.Util, f[5]}, {"mem total", s.MemTotal, f[7]}, {"mem used", s.MemUsed, f[8]}, {"power", s.PowerWatt, f[9]}} {
			want := smiNum(t, c.text)
			if (want == nil) != (c.got == nil) || want != nil && *want != *c.got {
				t.Errorf("line %d %s: got %v, want %q", i+2, c.what, c.got, c.text)
			}
		}
	}
	return times
}

// checkSMISubsetNamedRows checks rows read from the file with grep: the
// H100 load row, the MIG rows, and that every model is present.
func checkSMISubsetNamedRows(t *testing.T, samples []*finops.GPUSample) {
	t.Helper()
	// Values read from the file with grep: the H100 load row (line 9).
	h := samples[9-2]
	if h.Model != "H100" || *h.Util != 100 || *h.MemUsed != 19818 || *h.MemTotal != 81559 || *h.PowerWatt != 631.95 {
		t.Errorf("H100 load row: model %q util %v used %v total %v power %v", h.Model, *h.Util, *h.MemUsed, *h.MemTotal, *h.PowerWatt)
	}
	if want := time.Date(2026, 7, 14, 6, 12, 53, 353e6, time.UTC); !h.Time.Equal(want) {
		t.Errorf("H100 load row time %v, want %v", h.Time, want)
	}
	// MIG enabled: utilization is [N/A] (lines 10–13).
	for _, l := range []int{10, 11, 12, 13} {
		if s := samples[l-2]; s.Util != nil || s.MemUsed == nil {
			t.Errorf("line %d: MIG row util %v mem %v", l, s.Util, s.MemUsed)
		}
	}
	models := map[string]bool{}
	for _, s := range samples {
		models[s.Model] = true
	}
	for _, m := range []string{"H100", "H200", "L40S", "NVIDIA GeForce RTX 2080 SUPER", "NVIDIA GeForce RTX 4080 SUPER"} {
		if !models[m] {
			t.Errorf("model %q missing from %v", m, models)
		}
	}
}

func TestNvidiaSMIShanghai(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	sum, sink := mustParse(t, "smi_shanghai.csv", Options{Host: "fallback-host", Location: sh})
	f := func(v float64) *float64 { return &v }
	ms := time.Millisecond
	cases := []struct {
		line        int
		host        string
		index       int
		uuid        string
		t           time.Time // hand-converted: Shanghai is UTC+8
		util, power *float64
		used        float64
	}{
		{2, "gpu-node-1", 0, "GPU-aaaa", time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), f(87), f(300.5), 40000},
		{3, "gpu-node-1", 1, "GPU-bbbb", time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), nil, nil, 100},
		{4, "gpu-node-1", 0, "GPU-aaaa", time.Date(2026, 11, 2, 0, 1, 0, 0, time.UTC).Add(500 * ms), f(90), f(310), 41000},
		{5, "fallback-host", 0, "GPU-aaaa", time.Date(2026, 11, 2, 0, 2, 0, 0, time.UTC).Add(500 * ms), f(5), f(90.25), 1000},
		{6, "gpu-node-1", 1, "GPU-bbbb", time.Date(2026, 10, 31, 23, 30, 0, 0, time.UTC), f(0), f(60), 0},
	}
	for i, w := range cases {
		s := sink.samples[i]
		if s.Line != w.line || s.Host != w.host || s.Index != w.index || s.UUID != w.uuid || !s.Time.Equal(w.t) ||
			s.Model != "A100-80GB" || *s.MemUsed != w.used || *s.MemTotal != 81920 {
			t.Errorf("row %d: %+v, want %+v", i, *s, w)
		}
		if s.Time.Location() != time.UTC {
			t.Errorf("row %d: time not UTC", i)
		}
		for _, c := range []struct{ got, want *float64 }{{s.Util, w.util}, {s.PowerWatt, w.power}} {
			if (c.got == nil) != (c.want == nil) || c.got != nil && *c.got != *c.want {
				t.Errorf("row %d: got %v, want %v", i, c.got, c.want)
			}
		}
	}
	// GPU-aaaa steps: 60.5 s and 60 s; GPU-bbbb only goes back in time. Median 60.25 s.
	if want := 60250 * ms; sum.SampleInterval != want {
		t.Errorf("SampleInterval %v, want %v", sum.SampleInterval, want)
	}
	if !sum.PeriodStart.Equal(cases[4].t) || !sum.PeriodEnd.Equal(cases[3].t) {
		t.Errorf("period %v – %v", sum.PeriodStart, sum.PeriodEnd)
	}
}

func TestNvidiaSMINoHeader(t *testing.T) {
	if _, _, err := parseFile(t, "smi_noheader.csv", Options{}); err == nil {
		t.Error("a headerless log was detected without --format")
	}
	sum, sink := mustParse(t, "smi_noheader.csv", Options{Format: FormatNvidiaSMI})
	if len(sink.samples) != 2 || sum.SampleInterval != 30*time.Second {
		t.Fatalf("%d samples, interval %v", len(sink.samples), sum.SampleInterval)
	}
	s := sink.samples[0]
	if s.Line != 1 || s.Host != "unknown" || s.Model != "H100" || s.UUID != "GPU-cccc" || s.Index != 0 ||
		*s.Util != 55 || *s.MemUsed != 2048 || *s.MemTotal != 81559 || *s.PowerWatt != 350.25 ||
		!s.Time.Equal(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("first sample %+v", *s)
	}
	if sink.samples[1].Line != 2 || *sink.samples[1].Util != 0 {
		t.Errorf("second sample %+v", *sink.samples[1])
	}
}

func TestNvidiaSMIRowErrors(t *testing.T) {
	head := "timestamp, name, index, uuid, utilization.gpu [%], memory.used [MiB]\n"
	cases := []struct{ name, row, field, found string }{
		{"bad memory", "2026/11/02 08:00:00.000, NVIDIA L4, 0, GPU-1, 18 %, lots", "memory.used [MiB]", "lots"},
		{"bad time", "14.07.2026 08:00, NVIDIA L4, 0, GPU-1, 18 %, 10 MiB", "timestamp", "14.07.2026 08:00"},
		{"no identity", "2026/11/02 08:00:00.000, NVIDIA L4, [N/A], [N/A], 18 %, 10 MiB", "uuid", "[N/A]"},
		{"bad index", "2026/11/02 08:00:00.000, NVIDIA L4, zero, GPU-1, 18 %, 10 MiB", "index", "zero"},
		{"util not a number", "2026/11/02 08:00:00.000, NVIDIA L4, 0, GPU-1, busy %, 10 MiB", "utilization.gpu [%]", "busy %"},
		// A number out of 0–100 % (180, NaN) is a dropped sample, not a bad row: TestUtilOutOfRange.
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(t.Context(), strings.NewReader(head+c.row+"\n"), Options{Name: "gpu.log"}, &countSink{})
			wantErrParts(t, err, "gpu.log:2", c.field, c.found)
		})
	}
}
