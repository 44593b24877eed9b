package finops

import (
	"math"
	"reflect"
	"testing"
)

// TestSeriesPower: power is kept per minute beside utilization, in whole
// watts, whether the first minutes had it or not; readings two bytes cannot
// hold, or that are no number, leave the minute without power.
func TestSeriesPower(t *testing.T) {
	type add struct {
		minute int64
		watts  float64 // NaN: Add without power
	}
	nan := math.NaN()
	cases := []struct {
		name string
		adds []add
		want []float64 // per minute, -1: none; nil: HasPower false
	}{
		{"no power", []add{{10, nan}, {11, nan}}, nil},
		{"power after minutes without", []add{{10, nan}, {11, 300.4}, {400, nan}, {401, 150.6}}, []float64{-1, 300, -1, 151}},
		{"power then none", []add{{10, 0}, {11, nan}}, []float64{0, -1}},
		{"unusable readings", []add{{10, -5}, {11, 70000}, {12, 65534}}, []float64{-1, -1, 65534}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var g GPUSeries
			g.Grow(len(c.adds))
			for _, a := range c.adds {
				if a.watts != a.watts {
					g.Add(a.minute, 50)
				} else {
					g.AddPower(a.minute, 50, a.watts)
				}
			}
			if g.HasPower() != (c.want != nil) {
				t.Fatalf("HasPower = %v, want %v", g.HasPower(), c.want != nil)
			}
			var got []float64
			for i := range g.Len() {
				w, ok := g.PowerAt(i)
				if !ok {
					got = append(got, -1)
					continue
				}
				got = append(got, float64(w))
			}
			if c.want != nil && !reflect.DeepEqual(got, c.want) {
				t.Errorf("power = %v, want %v", got, c.want)
			}
			if id := g.Identity(); id.HasPower() {
				t.Error("Identity keeps the power")
			}
		})
	}
}
