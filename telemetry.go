package finops

import (
	"math"
	"strconv"
	"time"
)

// GPUSample is one utilization reading of one GPU (or MIG instance).
type GPUSample struct {
	Line int

	Host  string
	Index int    // GPU index on the host, -1 when unknown
	UUID  string // "GPU-…" (or "MIG-…"); "" when unknown
	// BusID is the GPU's PCI bus id (00000000:00:09.0), which keys it on its
	// host when a log has neither uuid nor index; "" otherwise.
	BusID string
	Model string // canonical model when recognised, else the raw name
	// Slice is nil for a whole card; for a vGPU profile or MIG instance it
	// says which part of its Model (the parent card) the device is.
	Slice *GPUSlice

	Time time.Time // UTC

	Util      *float64 // 0–100; nil when the source says N/A (e.g. MIG)
	MemUsed   *float64 // MiB
	MemTotal  *float64 // MiB
	PowerWatt *float64
}

// GPUKey is the sample's GPU key (see GPUKey): with neither UUID nor index,
// host/PCI bus id.
func (s *GPUSample) GPUKey() string {
	if s.UUID == "" && s.Index < 0 && s.BusID != "" {
		return s.Host + "/" + s.BusID
	}
	return GPUKey(s.UUID, s.Host, s.Index)
}

// GPUKey is the stable GPU identity of metrics.md: UUID when known, else
// host/index.
func GPUKey(uuid, host string, index int) string {
	if uuid != "" {
		return uuid
	}
	return host + "/" + strconv.Itoa(index)
}

// GPUSlice is a vGPU profile or MIG instance: part of one physical card,
// recorded under the card's model with its fractions (gpu.Slice) and never
// counted as a whole card (docs/METRICS.md, "Slices and shared GPUs").
type GPUSlice struct {
	Kind    string // "vGPU" or "MIG"
	Profile string // "A100-10C", "1g.10gb"
	// MemoryFraction is the profile's memory over the card's, the share a
	// slice counts as; 0 when the card's memory is unknown.
	MemoryFraction float64
	// ComputeFraction is a MIG instance's share of the card's compute
	// slices (g/7); 0 for a time-sliced vGPU, whose compute is not its own.
	ComputeFraction float64
}

// Cards is how many cards a GPU with slice sl counts as: 1 for a whole card
// (sl nil), else the slice's memory fraction (0 when unknown: counted as a
// slice, never as a card).
func (sl *GPUSlice) Cards() float64 {
	if sl == nil {
		return 1
	}
	return sl.MemoryFraction
}

// ValidUtil is the one rule every telemetry source (nvidia-smi logs and NVML
// spools, dcgm-exporter scrapes, Prometheus) applies to a reading, so that no
// source invents idle minutes from −7 % or full ones from 150 %.
//
// It reports whether v is a utilization reading: a number within
// 0–100 % (after scaling a 0–1 ratio to percent). Anything else (NaN, ±Inf,
// −7, 150) is no sample: every telemetry source drops the whole reading and
// counts it in ingest's Summary.SamplesDropped, which the report's
// data-quality box shows per source. Clamping would turn a broken exporter
// into idle or busy GPUs.
func ValidUtil(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 && v <= 100
}
