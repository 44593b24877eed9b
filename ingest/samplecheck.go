package ingest

import (
	"fmt"
	"math"
)

// The one rule every telemetry source (nvidia-smi logs and NVML spools,
// dcgm-exporter scrapes, Prometheus) applies to a reading, so that no
// source invents idle minutes from −7 % or full ones from 150 %.

// ValidUtil reports whether v is a utilization reading: a number within
// 0–100 % (after scaling a 0–1 ratio to percent). Anything else (NaN, ±Inf,
// −7, 150) is no sample: the source drops the whole reading and counts it
// in Summary.SamplesDropped, which the report's data-quality box shows per
// source. Clamping would turn a broken exporter into idle or busy GPUs.
func ValidUtil(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 && v <= 100
}

// CheckMemory refuses a reading whose memory used is above its memory
// total (both MiB; nil when the source gave none): the source is broken or
// the columns are swapped, and either figure would be wrong. The error names
// the used field; the caller adds file and line.
func CheckMemory(used, total *float64) error {
	if used != nil && total != nil && *used > *total {
		return fmt.Errorf("memory used %g MiB is above the memory total %g MiB: the reading is broken or the columns are swapped",
			*used, *total)
	}
	return nil
}
