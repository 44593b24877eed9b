package ingest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

// Invariant (docs/INGEST.md, nvidia-smi logs: which GPU, which power): an
// nvidia-smi log is read by its header's fields, whatever their order, and a
// log finops cannot tie to a GPU is refused naming the fix.

// parseSMIText parses an nvidia-smi log held in memory.
func parseSMIText(t *testing.T, text string, opt Options) (*Summary, *recSink, error) {
	t.Helper()
	if opt.Name == "" {
		opt.Name = "gpu.log"
	}
	sink := &recSink{}
	sum, err := Parse(context.Background(), strings.NewReader(text), opt, sink)
	return sum, sink, err
}

// TestSMIIndexFirst reads the log of the HPC centres' recipe
// nvidia-smi --query-gpu=index,timestamp,utilization.gpu,utilization.memory,memory.total,memory.used,memory.free --format=csv -l 1
// (university HPC user guides give it; testdata/README): the header's
// first field is index, not timestamp. Detected and with --format nvidia-smi.
func TestSMIIndexFirst(t *testing.T) {
	// By hand from the file: two A100-40GB (40960 MiB), five samples each, a
	// second apart. GPU 0 at 87, 92, 100, 95, 76 % (mean 450/5 = 90), using
	// 30012, 30012, 31020, 31020, 29000 MiB; GPU 1 at 0, 12, 35, 48, 55 %
	// (mean 150/5 = 30), using 1024, 1024, 5120, 8192, 8192 MiB.
	wantUtil := map[int][]float64{0: {87, 92, 100, 95, 76}, 1: {0, 12, 35, 48, 55}}
	wantUsed := map[int][]float64{0: {30012, 30012, 31020, 31020, 29000}, 1: {1024, 1024, 5120, 8192, 8192}}
	wantMean := map[int]float64{0: 90, 1: 30}
	for _, format := range []string{"", FormatNvidiaSMI} {
		t.Run("format="+format, func(t *testing.T) {
			sum, sink := mustParse(t, "smi_hpc_index_first.csv", Options{Host: "node17", Format: format})
			if sum.Format != FormatNvidiaSMI || sum.Rows != 10 || len(sink.samples) != 10 || sum.HeaderRepeats != 0 {
				t.Fatalf("format %q rows %d samples %d repeats %d", sum.Format, sum.Rows, len(sink.samples), sum.HeaderRepeats)
			}
			// The stamps jitter by milliseconds (1.001 s, 1.001 s, 1.002 s, 0.999 s).
			if sum.SampleInterval.Round(time.Second) != time.Second {
				t.Errorf("sample interval %v, want 1s", sum.SampleInterval)
			}
			seen := map[int]int{}
			sumUtil := map[int]float64{}
			for _, s := range sink.samples {
				k := seen[s.Index]
				seen[s.Index]++
				if s.Host != "node17" || s.UUID != "" || s.Util == nil || s.MemUsed == nil || s.MemTotal == nil {
					t.Fatalf("line %d: %+v", s.Line, *s)
				}
				if *s.Util != wantUtil[s.Index][k] || *s.MemUsed != wantUsed[s.Index][k] || *s.MemTotal != 40960 {
					t.Errorf("line %d GPU %d: util %v used %v total %v", s.Line, s.Index, *s.Util, *s.MemUsed, *s.MemTotal)
				}
				want := time.Date(2026, 3, 2, 14, 5, 1+k, 0, time.UTC)
				if got := s.Time.Truncate(time.Second); !got.Equal(want) {
					t.Errorf("line %d: time %v, want %v", s.Line, s.Time, want)
				}
				sumUtil[s.Index] += *s.Util
			}
			for g, m := range wantMean {
				if got := sumUtil[g] / float64(seen[g]); seen[g] != 5 || got != m {
					t.Errorf("GPU %d: %d samples, mean %v %%, want 5 and %v", g, seen[g], got, m)
				}
			}
		})
	}
}

// TestSMIRepeatedHeaders reads a looping logger's file: `while :; do
// nvidia-smi --query-gpu=timestamp,name,index,utilization.gpu,memory.used,memory.total
// --format=csv >> gpu.log; sleep 60; done` writes its header before every
// sample (one of them with trailing spaces here). Also with CRLF line ends.
func TestSMIRepeatedHeaders(t *testing.T) {
	// By hand: six calls a minute apart, two V100s; 6 headers, so 5 repeats
	// (lines 4, 7, 10, 13, 16). GPU 0 at 10…60 % (mean 35), using 1000…6000
	// MiB; GPU 1 at 100, 100, 100, 0, 0, 0 % (mean 50), using 15000 MiB.
	text := string(readFile(t, testdata("smi_loop_repeated_header.csv")))
	for name, text := range map[string]string{"LF": text, "CRLF": strings.ReplaceAll(text, "\n", "\r\n")} {
		t.Run(name, func(t *testing.T) {
			sum, sink, err := parseSMIText(t, text, Options{Name: "gpu.log"})
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Rejected) != 0 || sum.Rows != 12 || sum.HeaderRepeats != 5 {
				t.Fatalf("rows %d rejected %v repeats %d, want 12, none, 5", sum.Rows, sum.Rejected, sum.HeaderRepeats)
			}
			var warned []string
			for _, w := range sum.Warnings {
				if strings.Contains(w.Msg, "repeat the header") {
					warned = append(warned, w.Error())
				}
			}
			if len(warned) != 1 || !strings.Contains(warned[0], "gpu.log:4: 5 lines repeat the header") {
				t.Errorf("warnings %v: want one saying gpu.log:4: 5 lines repeat the header", warned)
			}
			util := map[int][]float64{}
			for _, s := range sink.samples {
				util[s.Index] = append(util[s.Index], *s.Util)
				k := len(util[s.Index]) - 1
				if s.Index == 0 && *s.MemUsed != float64(1000*(k+1)) || s.Index == 1 && *s.MemUsed != 15000 || *s.MemTotal != 16384 {
					t.Errorf("line %d: %+v", s.Line, *s)
				}
				if want := time.Date(2026, 4, 7, 9, k, 0, 0, time.UTC); !s.Time.Truncate(time.Second).Equal(want) {
					t.Errorf("line %d: time %v, want %v", s.Line, s.Time, want)
				}
			}
			if fmt.Sprint(util[0]) != "[10 20 30 40 50 60]" || fmt.Sprint(util[1]) != "[100 100 100 0 0 0]" {
				t.Errorf("utilization %v", util)
			}
		})
	}
	// Only headers (the logger ran while nvidia-smi found no GPU): read as a
	// header-only file is, 0 rows, with the repeats said; not "text after the
	// header, but not one row was read".
	h := "timestamp, index, utilization.gpu [%]\n"
	for _, text := range []string{h, h + h + h} {
		sum, _, err := parseSMIText(t, text, Options{})
		if err != nil || sum.Rows != 0 || sum.HeaderRepeats != strings.Count(text, "\n")-1 {
			t.Errorf("%q: %v, %+v", text, err, sum)
		}
	}
	// A line like the header but not it (the logger changed its list) is a
	// bad row, as before: only the header itself is skipped.
	changed := strings.Replace(text, "timestamp, name, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]  \n",
		"timestamp, name, index, utilization.gpu [%], memory.total [MiB], memory.used [MiB]\n", 1)
	if changed == text {
		t.Fatal("the test's header line is not in the file")
	}
	_, _, err := parseSMIText(t, changed, Options{})
	wantErrParts(t, err, "gpu.log:10", `field "timestamp"`)
}

// TestSMIOneGPUNoIDs reads a one-GPU log without index, uuid or pci.bus_id:
// --query-gpu=timestamp,name,utilization.gpu,utilization.memory,memory.used,power.draw,
// an RTX 4090 at 83 % for 48 minutes.
func TestSMIOneGPUNoIDs(t *testing.T) {
	t.Run("with host", func(t *testing.T) {
		sum, sink := mustParse(t, "smi_one_gpu_no_ids.csv", Options{Host: "rig"})
		// By hand: 48 samples a minute apart (21:00:00.412–21:47:00.412), each covering a
		// minute: 48 GPU-minutes at 83 %, so 48 × 0.83 = 39.84 busy GPU-minutes.
		if sum.Rows != 48 || sum.SampleInterval != time.Minute {
			t.Fatalf("rows %d interval %v, want 48 and 1m", sum.Rows, sum.SampleInterval)
		}
		gpuMinutes := time.Duration(sum.Rows) * sum.SampleInterval
		var utilSum float64
		for _, s := range sink.samples {
			if s.Host != "rig" || s.Index != 0 || s.UUID != "" || s.BusID != "" || *s.MemUsed != 18211 {
				t.Fatalf("line %d: %+v", s.Line, *s)
			}
			utilSum += *s.Util
		}
		mean := utilSum / float64(len(sink.samples))
		if gpuMinutes != 48*time.Minute || mean != 83 || gpuMinutes.Minutes()*mean/100 != 39.84 {
			t.Errorf("GPU-minutes %v, mean %v %%: want 48m0s, 83 %% (39.84 busy minutes)", gpuMinutes, mean)
		}
		if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0].Msg, "no index/uuid/pci.bus_id column: read as one GPU, rig/0") {
			t.Errorf("warnings %v", sum.Warnings)
		}
	})
	t.Run("without host", func(t *testing.T) {
		_, _, err := parseFile(t, "smi_one_gpu_no_ids.csv", Options{})
		wantErrParts(t, err, "smi_one_gpu_no_ids.csv:1", "no index, uuid or pci.bus_id", "add index or uuid", "--query-gpu", "--host")
		if err != nil && strings.Contains(err.Error(), "column 0") {
			t.Errorf("error names column 0: %v", err)
		}
	})
	t.Run("two GPUs, no ids", func(t *testing.T) {
		// Two rows at one time are two GPUs nothing tells apart: refused
		// on the second, naming the timestamp column, not read as one.
		text := "timestamp, utilization.gpu [%]\n2026/05/10 21:00:00.000, 83 %\n2026/05/10 21:00:00.000, 12 %\n"
		_, _, err := parseSMIText(t, text, Options{Host: "rig"})
		wantErrParts(t, err, "gpu.log:3", `field "timestamp"`, "more than one GPU", "add index or uuid")
	})
	t.Run("ids null in a row", func(t *testing.T) {
		// The log has an index column but the row has none: the error names it.
		text := "index, timestamp, utilization.gpu [%]\n[N/A], 2026/05/10 21:00:00.000, 83 %\n"
		_, _, err := parseSMIText(t, text, Options{Host: "rig"})
		wantErrParts(t, err, "gpu.log:2", `field "index"`)
		if err != nil && strings.Contains(err.Error(), "column 0") {
			t.Errorf("error names column 0: %v", err)
		}
	})
}

// TestSMIHeaderRecognition: which headers are nvidia-smi's, and what a
// header with timestamp but nothing finops reads a GPU by is told.
func TestSMIHeaderRecognition(t *testing.T) {
	for _, c := range []struct {
		hdr  string
		want bool
	}{
		{"timestamp, utilization.gpu [%]", true},
		{"index, timestamp, utilization.gpu [%], utilization.memory [%]", true},
		{"utilization.memory [%], timestamp", true},
		{"pci.bus_id, name, timestamp", true},
		{"gpu_uuid, timestamp", true}, // an alias
		{"timestamp, name, memory.used [MiB]", false},
		{"index, utilization.gpu [%]", false},
		{"2026/05/10 21:00:00.000, 0, 83 %", false}, // a row
		{"date, index, value", false},
	} {
		if got := isNvidiaSMIHeader(cleanHeader(strings.Split(c.hdr, ","))); got != c.want {
			t.Errorf("%q: %v, want %v", c.hdr, got, c.want)
		}
	}
	_, _, err := DetectFormat(cleanHeader(strings.Split("timestamp, name, memory.used [MiB]", ",")), nil)
	wantErrParts(t, err, "looks like an nvidia-smi log", "add utilization.gpu and index")
}

// smiGenField is a --query-gpu field the generated logs may hold: its
// header cell, and its value for GPU g's sample k.
type smiGenField struct {
	name, unit string
}

func smiGenFields() []smiGenField {
	return []smiGenField{
		{"timestamp", ""}, {"name", ""}, {"index", ""}, {"uuid", ""}, {"pci.bus_id", ""},
		{"utilization.gpu", "%"}, {"utilization.memory", "%"}, {"memory.total", "MiB"}, {"memory.used", "MiB"},
		{"memory.free", "MiB"}, {"power.draw", "W"}, {"temperature.gpu", ""}, {"clocks.current.sm", "MHz"},
	}
}

// genSMISample is what a generated row says of one GPU at one time.
type genSMISample struct {
	t                  time.Time
	gpu                int
	util, used, total  float64
	utilMem, watts, mh float64
}

// TestSMIHeaderOrderGenerated: random subsets of --query-gpu fields in random
// order, with or without units, with or without a header before every call,
// LF or CRLF: every log imports the samples generated, checked against the
// generated values (not against another order's output). A log without an
// identity column is one GPU read with --host, and refused without it.
func TestSMIHeaderOrderGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(34))
	key := []string{"utilization.gpu", "utilization.memory", "uuid", "index", "pci.bus_id"}
	// The shapes the cases must include, so the loop cannot pass by
	// generating only easy logs.
	shapes := map[string]int{}
	defer func() {
		for _, s := range []string{"timestamp not first", "no identity", "repeated headers", "CRLF", "nounits"} {
			if shapes[s] < 10 {
				t.Errorf("only %d generated logs with %s", shapes[s], s)
			}
		}
	}()
	for n := 0; n < 400; n++ {
		fields, has := smiGenPick(rng, key)
		rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		ided := has["uuid"] || has["index"] || has["pci.bus_id"]
		gpus := 1
		if ided {
			gpus = 1 + rng.Intn(3)
		}
		units, repeat, crlf := rng.Intn(2) == 0, rng.Intn(3) == 0, rng.Intn(4) == 0
		for s, ok := range map[string]bool{"timestamp not first": fields[0].name != "timestamp", "no identity": !ided,
			"CRLF": crlf, "nounits": !units} {
			if ok {
				shapes[s]++
			}
		}

		header := smiGenHeader(fields)
		start := time.Date(2026, time.Month(1+rng.Intn(12)), 1+rng.Intn(28), rng.Intn(24), rng.Intn(60), 0, 0, time.UTC)
		var b strings.Builder
		var want []genSMISample
		calls := 1 + rng.Intn(8)
		repeats := 0
		for k := 0; k < calls; k++ {
			if k == 0 || repeat {
				b.WriteString(header)
				if k > 0 {
					repeats++
					b.WriteString(strings.Repeat(" ", rng.Intn(3)))
				}
				b.WriteString("\n")
			}
			at := start.Add(time.Duration(k)*30*time.Second + time.Duration(rng.Intn(1000))*time.Millisecond)
			for g := 0; g < gpus; g++ {
				s := genSMISample{t: at, gpu: g, util: float64(rng.Intn(101)), total: 81559, utilMem: float64(rng.Intn(101)),
					watts: float64(rng.Intn(40000)) / 100, mh: float64(210 + rng.Intn(1800))}
				s.used = float64(rng.Intn(81560))
				want = append(want, s)
				b.WriteString(smiGenRow(fields, s, g, units) + "\n")
			}
		}
		if repeats > 0 {
			shapes["repeated headers"]++
		}
		text := b.String()
		if crlf {
			text = strings.ReplaceAll(text, "\n", "\r\n")
		}
		desc := fmt.Sprintf("case %d (%d GPUs, units %v, repeat %v, crlf %v):\n%s", n, gpus, units, repeat, crlf, text)

		host := ""
		if !ided {
			host = "rig"
			// Without a host such a log is refused at its header, naming the fix.
			_, _, err := parseSMIText(t, text, Options{})
			if err == nil || !strings.Contains(err.Error(), "gpu.log:1") || !strings.Contains(err.Error(), "--host") ||
				!strings.Contains(err.Error(), "add index or uuid") {
				t.Fatalf("%s\nwithout --host: %v", desc, err)
			}
		}
		checkSMIGenerated(t, text, desc, host, has, want, repeats)
	}
}

// smiGenPick picks a random subset of the fields, timestamp always, and
// one of key when the subset has none of them.
func smiGenPick(rng *rand.Rand, key []string) ([]smiGenField, map[string]bool) {
	all := smiGenFields()
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	fields := []smiGenField{{"timestamp", ""}}
	has := map[string]bool{"timestamp": true}
	for _, f := range all {
		if f.name != "timestamp" && rng.Intn(2) == 0 {
			fields = append(fields, f)
			has[f.name] = true
		}
	}
	if !has["utilization.gpu"] && !has["utilization.memory"] && !has["uuid"] && !has["index"] && !has["pci.bus_id"] {
		k := key[rng.Intn(len(key))]
		for _, f := range smiGenFields() {
			if f.name == k {
				fields = append(fields, f)
				has[k] = true
			}
		}
	}
	return fields, has
}

// smiGenHeader is the header line naming the fields, with their units.
func smiGenHeader(fields []smiGenField) string {
	var hdr []string
	for _, f := range fields {
		h := f.name
		if f.unit != "" {
			h += " [" + f.unit + "]"
		}
		hdr = append(hdr, h)
	}
	return strings.Join(hdr, ", ")
}

// smiGenRow is GPU g's row of sample s, a cell per field, with units or
// not.
func smiGenRow(fields []smiGenField, s genSMISample, g int, units bool) string {
	var cells []string
	for _, f := range fields {
		var v string
		switch f.name {
		case "timestamp":
			v = s.t.Format("2006/01/02 15:04:05.000")
		case "name":
			v = "NVIDIA Generated GPU"
		case "index":
			v = fmt.Sprint(g)
		case "uuid":
			v = fmt.Sprintf("GPU-%08x-0000-0000-0000-000000000000", g)
		case "pci.bus_id":
			v = fmt.Sprintf("00000000:%02X:00.0", 7+g)
		case "utilization.gpu":
			v = fmt.Sprint(s.util)
		case "utilization.memory":
			v = fmt.Sprint(s.utilMem)
		case "memory.total":
			v = fmt.Sprint(s.total)
		case "memory.used":
			v = fmt.Sprint(s.used)
		case "memory.free":
			v = fmt.Sprint(s.total - s.used)
		case "power.draw":
			v = fmt.Sprintf("%.2f", s.watts)
		case "temperature.gpu":
			v = fmt.Sprint(30 + g)
		case "clocks.current.sm":
			v = fmt.Sprint(s.mh)
		}
		if units && f.unit != "" {
			v += " " + f.unit
		}
		cells = append(cells, v)
	}
	return strings.Join(cells, ", ")
}

// checkSMIGenerated parses a generated log, detected and with --format
// nvidia-smi, and compares every sample with what was written.
func checkSMIGenerated(t *testing.T, text, desc, host string, has map[string]bool, want []genSMISample, repeats int) {
	t.Helper()
	for _, format := range []string{"", FormatNvidiaSMI} {
		sum, sink, err := parseSMIText(t, text, Options{Host: host, Format: format})
		if err != nil {
			t.Fatalf("%s\nformat %q: %v", desc, format, err)
		}
		if len(sum.Rejected) > 0 {
			t.Fatalf("%s\nformat %q: rejected %v", desc, format, sum.Rejected)
		}
		if sum.Rows != len(want) || len(sink.samples) != len(want) || sum.HeaderRepeats != repeats {
			t.Fatalf("%s\nformat %q: rows %d samples %d repeats %d, want %d, %d", desc, format, sum.Rows, len(sink.samples),
				sum.HeaderRepeats, len(want), repeats)
		}
		for i, w := range want {
			s := sink.samples[i]
			if !smiGenMatches(s, w, host, has) {
				t.Fatalf("%s\nformat %q: sample %d %+v, want %+v", desc, format, i, *s, w)
			}
		}
	}
}

// smiGenMatches says whether parsed sample s is written sample w: its
// time, host, identity and the measures the log has.
func smiGenMatches(s *finops.GPUSample, w genSMISample, host string, has map[string]bool) bool {
	ok := s.Time.Equal(w.t) && (s.Host == host || host == "" && s.Host == "unknown")
	switch {
	case has["uuid"]:
		ok = ok && s.UUID == fmt.Sprintf("GPU-%08x-0000-0000-0000-000000000000", w.gpu)
	case has["index"]:
		ok = ok && s.Index == w.gpu
	case has["pci.bus_id"]:
		ok = ok && s.BusID == fmt.Sprintf("00000000:%02X:00.0", 7+w.gpu)
	default:
		ok = ok && s.Index == 0
	}
	if has["index"] {
		ok = ok && s.Index == w.gpu
	}
	ok = ok && sameMeasure(s.Util, has["utilization.gpu"], w.util) && sameMeasure(s.MemUsed, has["memory.used"], w.used) &&
		sameMeasure(s.MemTotal, has["memory.total"], w.total) && sameMeasure(s.PowerWatt, has["power.draw"], w.watts)
	return ok
}

// sameMeasure: a measure is read exactly when its column is there, and is
// nil when it is not.
func sameMeasure(got *float64, present bool, want float64) bool {
	if !present {
		return got == nil
	}
	return got != nil && *got == want
}

// TestSMITestdataCited keeps the recipe files' provenance in testdata/README.
func TestSMITestdataCited(t *testing.T) {
	readme, err := os.ReadFile(testdata("../README"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"smi_hpc_index_first.csv", "smi_loop_repeated_header.csv", "smi_one_gpu_no_ids.csv"} {
		if !bytes.Contains(readme, []byte("ingest/"+f)) {
			t.Errorf("testdata/README does not say where %s comes from", f)
		}
	}
}
