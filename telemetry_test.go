package finops

import (
	"math"
	"testing"
)

func TestValidUtil(t *testing.T) {
	// The bounds of metrics.md: 0 and 100 are readings, anything beyond them
	// or not a number is not.
	for _, c := range []struct {
		v    float64
		want bool
	}{{0, true}, {100, true}, {37.5, true}, {-7, false}, {-0.001, false}, {100.001, false}, {150, false},
		{math.NaN(), false}, {math.Inf(1), false}, {math.Inf(-1), false}} {
		if got := ValidUtil(c.v); got != c.want {
			t.Errorf("ValidUtil(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestGPUKey(t *testing.T) {
	for _, c := range []struct {
		s    GPUSample
		want string
	}{
		{GPUSample{UUID: "GPU-1", Host: "h", Index: 3}, "GPU-1"}, // the UUID wins over host/index
		{GPUSample{Host: "h", Index: 3}, "h/3"},
		{GPUSample{Host: "h", Index: -1}, "h/-1"}, // index unknown: still one key per host
		{GPUSample{UUID: "MIG-9", Index: 0}, "MIG-9"},
	} {
		if got := c.s.GPUKey(); got != c.want {
			t.Errorf("%+v: GPUKey() = %q, want %q", c.s, got, c.want)
		}
	}
}
