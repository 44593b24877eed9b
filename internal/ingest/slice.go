package ingest

import (
	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
)

// GPUModel is the model and slice to record for a GPU name a telemetry
// source reports (nvidia-smi's name, dcgm-exporter's modelName with its
// GPU_I_PROFILE, a Prometheus label): a vGPU profile or MIG instance is its
// parent model with its slice, never the whole card (docs/METRICS.md,
// "Slices and shared GPUs"); a slice whose parent the name does not give
// keeps the name as its model. Otherwise the catalog's model, else the
// name itself, with a nil slice.
func GPUModel(cat *gpu.Catalog, name string) (string, *finops.GPUSlice) {
	if s, ok := cat.ParseSlice(name); ok {
		model := s.Parent
		if model == "" {
			model = name
		}
		return model, &finops.GPUSlice{Kind: s.Kind, Profile: s.Profile,
			MemoryFraction: s.MemoryFraction, ComputeFraction: s.ComputeFraction}
	}
	return cat.Model(name), nil
}
