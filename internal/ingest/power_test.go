package ingest

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// smiPowerLog is an nvidia-smi log of one row per reading: the GPU's name
// as the driver prints it and its power.draw.
func smiPowerLog(rows [][2]string) string {
	var b strings.Builder
	b.WriteString("timestamp, name, index, uuid, utilization.gpu [%], power.draw [W]\n")
	for i, r := range rows {
		fmt.Fprintf(&b, "2026/11/02 08:%02d:%02d.000, %s, 0, GPU-%04d, 50 %%, %s W\n", i/60%60, i%60, r[0], i, r[1])
	}
	return b.String()
}

// TestPowerNamedCases: issue 32's readings, refused naming the file, line
// and the power column; the bound itself is a reading.
func TestPowerNamedCases(t *testing.T) {
	for _, c := range []struct {
		name, gpu, watts string
		ok               bool
	}{
		{"10^12 W", "NVIDIA A100-SXM4-80GB", "1000000000000", false},
		{"10^12 W, unknown GPU", "NVIDIA Quantum Card", "1e12", false},
		{"5000 W on an A100", "NVIDIA A100-SXM4-80GB", "5000", false},
		{"1.5× an A100's 400 W", "NVIDIA A100-SXM4-80GB", "600", true},
		{"just above 1.5× an A100's 400 W", "NVIDIA A100-SXM4-80GB", "600.0000000000001", false},
		{"an H100 at 700 W", "NVIDIA H100 80GB HBM3", "700.5", true},
		{"an L4 at 109 W", "NVIDIA L4", "109", false}, // 72 W × 1.5 = 108
		{"unknown GPU at 3 kW", "NVIDIA Quantum Card", "3000", true},
		{"unknown GPU above 3 kW", "NVIDIA Quantum Card", "3000.5", false},
	} {
		sum, sink, err := parseString(smiPowerLog([][2]string{{c.gpu, c.watts}}), "smi.csv")
		if c.ok {
			if err != nil || sum.Rows != 1 || sink.samples[0].PowerWatt == nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted (%d rows)", c.name, sum.Rows)
			continue
		}
		wantErrParts(t, err, "smi.csv:2", `field "power.draw [W]"`, "not a plausible reading")
	}
}

// TestPowerGenerated: random readings of GPUs whose rated power is written
// here from the vendors' spec sheets (not read from the catalog), many of
// them at and next to the bound: a reading is refused, as a bad row naming
// its line and the power column, exactly when it is above 1.5× the rated
// power (3 kW for an unknown GPU); every other reading is stored as read.
func TestPowerGenerated(t *testing.T) {
	gpus := []struct {
		name  string
		rated float64 // 0: unknown to finops
	}{
		{"NVIDIA A100-SXM4-80GB", 400}, {"NVIDIA A100-PCIE-40GB", 400}, {"NVIDIA H100 80GB HBM3", 700},
		{"NVIDIA H200", 700}, {"NVIDIA L4", 72}, {"Tesla T4", 70}, {"NVIDIA GeForce RTX 4090", 450},
		{"NVIDIA L40S", 350}, {"NVIDIA A10", 150}, {"Tesla V100-SXM2-32GB", 350}, {"NVIDIA Quantum Card", 0},
	}
	rng := rand.New(rand.NewSource(1032))
	var rows [][2]string
	var want []bool // accepted
	var watts []float64
	for i := 0; i < 3000; i++ {
		g := gpus[rng.Intn(len(gpus))]
		bound := 3000.0
		if g.rated > 0 {
			bound = g.rated * 3 / 2
		}
		var w float64
		switch rng.Intn(6) {
		case 0:
			w = bound
		case 1:
			w = math.Nextafter(bound, math.Inf(1))
		case 2:
			w = math.Nextafter(bound, 0)
		case 3:
			w = math.Pow(10, float64(3+rng.Intn(10))) // a reading in milliwatts and worse
		default:
			w = rng.Float64() * 3 * bound
		}
		rows = append(rows, [2]string{g.name, strconv.FormatFloat(w, 'f', -1, 64)})
		want = append(want, w <= bound)
		watts = append(watts, w)
	}
	sink := &recSink{}
	sum, err := Parse(context.Background(), strings.NewReader(smiPowerLog(rows)), Options{Name: "gen.csv", MaxBadRows: len(rows)}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Rejected) == 0 || len(sink.samples) == 0 || len(sum.Rejected)+len(sink.samples) != len(rows) {
		t.Fatalf("%d refused, %d stored of %d readings: want both kinds, adding up", len(sum.Rejected), len(sink.samples), len(rows))
	}
	refused := map[int]bool{}
	for _, r := range sum.Rejected {
		refused[r.Line] = true
		if r.Field != "power.draw [W]" || !strings.Contains(r.Msg, "not a plausible reading") {
			t.Errorf("line %d refused as %v", r.Line, r)
		}
	}
	got := map[int]float64{}
	for _, s := range sink.samples {
		got[s.Line] = *s.PowerWatt
	}
	for i, ok := range want {
		line := i + 2
		switch {
		case ok && refused[line]:
			t.Errorf("line %d: %s W of %s refused", line, rows[i][1], rows[i][0])
		case !ok && !refused[line]:
			t.Errorf("line %d: %s W of %s not refused", line, rows[i][1], rows[i][0])
		case ok && got[line] != watts[i]:
			t.Errorf("line %d: stored %v W, want %v", line, got[line], watts[i])
		}
	}
}
