package ingest

import (
	"fmt"
	"math"
	"strconv"

	"github.com/finops-oss/finops/internal/gpu"
)

// The power invariant (docs/INGEST.md §Power): a power reading above a
// plausible bound for its GPU model — 1.5× the model's rated power
// (gpu.PowerBound), or 3 kW when the catalog does not know it — is refused
// as a bad row, naming the field, in every telemetry dialect that carries
// power (nvidia-smi logs and NVML spool files, dcgm-exporter scrapes; a
// Prometheus point drops as a sample). A reading in milliwatts, or a
// broken exporter's 10¹² W, would otherwise be stored and turned into
// energy and CO₂e.

// PowerCheck judges power readings against gpu.PowerBound, keeping each
// model's bound: a log repeats a handful of models millions of times.
type PowerCheck struct {
	bounds map[string][2]float64 // model → bound, rated
}

// NewPowerCheck returns a PowerCheck with no bounds looked up yet.
func NewPowerCheck() *PowerCheck { return &PowerCheck{bounds: map[string][2]float64{}} }

// Check returns nil for a plausible reading of model (watts at most its
// bound), else an error saying the bound and what to check.
func (c *PowerCheck) Check(model string, watts float64) error {
	b, ok := c.bounds[model]
	if !ok {
		b[0], b[1] = gpu.PowerBound(model)
		c.bounds[model] = b
	}
	if watts <= b[0] && !math.IsNaN(watts) {
		return nil
	}
	w := strconv.FormatFloat(watts, 'g', -1, 64)
	if b[1] == 0 {
		return fmt.Errorf("power %s W is above %s W, more than any GPU draws (finops knows no rated power for the model %q): "+
			"not a plausible reading; is the value in milliwatts, or the exporter broken? fix the source",
			w, strconv.FormatFloat(b[0], 'f', -1, 64), model)
	}
	return fmt.Errorf("power %s W is above %s W, 1.5× the %s's rated %s W: not a plausible reading; "+
		"is the value in milliwatts, or the exporter broken? fix the source",
		w, strconv.FormatFloat(b[0], 'f', -1, 64), model, strconv.FormatFloat(b[1], 'f', -1, 64))
}
