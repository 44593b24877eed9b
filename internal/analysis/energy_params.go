package analysis

import "strings"

// EnergyParams turn a window's kWh into CO₂e (metrics.md §Energy). With no
// intensity for a resource, its CO₂e is unknown: none is invented.
type EnergyParams struct {
	// PUE multiplies the GPUs' energy into the datacenter's before the grid
	// intensity applies; 0 means 1 (rented GPUs' overhead is unknown).
	PUE float64
	// Grid intensities in gCO₂e/kWh: a resource's region first (the
	// billing line's Region, compared without case), then its provider,
	// then Default (nil: none).
	Regions   map[string]float64
	Providers map[string]float64
	Default   *float64
}

// pue is the PUE applied: 1 when none is set.
func (e EnergyParams) pue() float64 {
	if e.PUE <= 0 {
		return 1
	}
	return e.PUE
}

// intensity is the grid intensity (gCO₂e/kWh) of a resource in region of
// provider, and whether one applies.
func (e EnergyParams) intensity(provider, region string) (float64, bool) {
	if v, ok := lookupFold(e.Regions, region); ok {
		return v, true
	}
	if v, ok := lookupFold(e.Providers, provider); ok {
		return v, true
	}
	if e.Default != nil {
		return *e.Default, true
	}
	return 0, false
}

func lookupFold(m map[string]float64, k string) (float64, bool) {
	if k == "" {
		return 0, false
	}
	if v, ok := m[k]; ok {
		return v, true
	}
	for mk, v := range m {
		if strings.EqualFold(mk, k) {
			return v, true
		}
	}
	return 0, false
}
