package plan

import (
	"math"
	"strings"
	"testing"
)

// TestSliceGPURow: a gpus: row naming a MIG instance or vGPU profile gets
// the slice's memory, never the card's (issue #34): A100-80GB MIG 3g.40gb is
// 40 GB, 312 × 3/7 TFLOPS and 2,039 × 40/80 GB/s; GRID A100-10C is 10 GB
// with its compute not its own, so the row must give tflops and bandwidth.
func TestSliceGPURow(t *testing.T) {
	f, err := Parse("s.yaml", []byte(`
gpus:
  - {model: A100-80GB MIG 3g.40gb}
  - {model: GRID A100-10C, tflops: 78, bandwidth_gbs: 389}
scenarios:
  - {name: job, `+testJob[1:]+`}
`))
	if err != nil {
		t.Fatal(err)
	}
	p := &problems{f: f}
	gs := f.gpuTable(p)
	if len(p.list) != 0 {
		t.Fatalf("problems %+v", p.list)
	}
	want := map[string][3]float64{
		"A100-80GB MIG 3g.40gb": {312.0 * 3 / 7, 40, 2039.0 / 2},
		"GRID A100-10C":         {78, 10, 389},
	}
	found := 0
	for _, g := range gs {
		w, ok := want[g.Model]
		if !ok {
			continue
		}
		found++
		if math.Abs(g.TFLOPS-w[0]) > 1e-9 || g.VRAMGB != w[1] || math.Abs(g.BandwidthGBs-w[2]) > 1e-9 || g.NVLink {
			t.Errorf("%s: %+v, want %v TFLOPS, %v GB, %v GB/s, no NVLink", g.Model, g, w[0], w[1], w[2])
		}
	}
	if found != 2 {
		t.Fatalf("%d slice rows in the table, want 2", found)
	}

	// A vGPU row without tflops: its compute is not its own, so required.
	f, err = Parse("s.yaml", []byte("gpus:\n  - {model: GRID A100-10C}\nscenarios:\n  - {name: job, "+testJob[1:]+"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p = &problems{f: f}
	f.gpuTable(p)
	var msgs []string
	for _, pr := range p.list {
		msgs = append(msgs, pr.Field+": "+pr.Msg)
	}
	if got := strings.Join(msgs, "\n"); !strings.Contains(got, "tflops: required") || !strings.Contains(got, "bandwidth_gbs: required") || strings.Contains(got, "vram_gb:") {
		t.Errorf("problems %q: want tflops and bandwidth_gbs required, vram_gb known (10 GB)", got)
	}
}
