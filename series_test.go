package finops

import (
	"reflect"
	"testing"
)

func TestGPUSeriesAdd(t *testing.T) {
	var g GPUSeries
	if g.Len() != 0 || len(g.Minutes()) != 0 {
		t.Fatalf("empty series: Len %d, Minutes %v", g.Len(), g.Minutes())
	}
	// The first minute added is the series' start; later ones are offsets
	// from it, so a gap keeps its minute.
	in := []MinuteUtil{{Minute: 29013720, Util: 30}, {Minute: 29013721, Util: 7.5}, {Minute: 29013780, Util: 100}}
	for _, m := range in {
		g.Add(m.Minute, m.Util)
	}
	if g.Start != 29013720 || !reflect.DeepEqual(g.Offsets, []uint32{0, 1, 60}) {
		t.Errorf("Start %d, Offsets %v; want 29013720, [0 1 60]", g.Start, g.Offsets)
	}
	if got := g.Minutes(); !reflect.DeepEqual(got, in) || g.Len() != 3 {
		t.Errorf("Minutes() = %v (Len %d), want %v", got, g.Len(), in)
	}
}
