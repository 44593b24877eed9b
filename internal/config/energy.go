package config

import (
	"fmt"
	"sort"
	"strings"
)

// Energy is the energy: section (docs/METRICS.md §Energy): the grid
// intensities that turn the GPUs' kWh into CO₂e, and the PUE. Nothing is
// assumed: with no intensity for a resource, its CO₂e is unknown.
type Energy struct {
	// PUE is the datacenter's power usage effectiveness; default 1.0, as the
	// overhead of a rented GPU's datacenter is unknown.
	PUE           *float64      `yaml:"pue"`
	GridIntensity GridIntensity `yaml:"grid_intensity"`
}

// GridIntensity is gCO₂e per kWh: by the billing line's region, then by
// provider, then the default.
type GridIntensity struct {
	Default   *float64           `yaml:"default"`
	Regions   map[string]float64 `yaml:"regions"`
	Providers map[string]float64 `yaml:"providers"`
}

// The ranges of the energy keys: a PUE below 1 is not a PUE (at most 5, as
// purchase.pue), and the most
// carbon-intensive grids (coal, lifecycle) are about 1,100 g/kWh.
var (
	pueRange       = numRange{lo: 1, hi: 5}
	intensityRange = numRange{lo: 0, hi: 2000}
)

func (e *Energy) validate() []error {
	var errs []error
	if err := pueRange.optional("energy.pue", e.PUE); err != nil {
		errs = append(errs, err)
	}
	g := e.GridIntensity
	if err := intensityRange.optional("energy.grid_intensity.default", g.Default); err != nil {
		errs = append(errs, err)
	}
	for _, m := range []struct {
		key string
		v   map[string]float64
	}{{"regions", g.Regions}, {"providers", g.Providers}} {
		keys := make([]string, 0, len(m.v))
		for k := range m.v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		// Regions and providers match bills without regard to case, so two
		// keys that differ only in case would pick one value at random.
		seen := map[string]string{}
		for _, k := range keys {
			if err := intensityRange.check(fmt.Sprintf("energy.grid_intensity.%s.%s", m.key, k), m.v[k]); err != nil {
				errs = append(errs, err)
			}
			if first, dup := seen[strings.ToLower(k)]; dup {
				errs = append(errs, fmt.Errorf("energy.grid_intensity.%s: %q and %q name the same %s (case does not count): keep one",
					m.key, first, k, strings.TrimSuffix(m.key, "s")))
			}
			seen[strings.ToLower(k)] = k
		}
	}
	return errs
}
