package plan

import "github.com/finops-oss/finops/internal/gpu"

// GPU is one GPU model's capability: what the memory, compute and decode
// formulas need.
type GPU struct {
	Model        string   `json:"model"`
	TFLOPS       float64  `json:"tflops"`        // dense BF16 tensor TFLOPS (no sparsity)
	VRAMGB       float64  `json:"vram_gb"`       // as marketed; read as 10⁹ bytes, never more than the card has
	BandwidthGBs float64  `json:"bandwidth_gbs"` // memory bandwidth, GB/s
	NVLink       bool     `json:"nvlink"`        // a fast card-to-card link (NVLink, HCCS): sharded training is practical
	Aliases      []string `json:"aliases,omitempty"`
	Source       string   `json:"source,omitempty"`
}

// DefaultGPUs returns the planner's GPU table: the cards it offers, in the
// order its tables list them, with their figures from package gpu (dense
// BF16 TFLOPS, memory, bandwidth, NVLink and where each comes from). Model
// names are the ones ingest records, so a price catalog shared with
// finops.yaml matches. The scenario file's gpus: list overrides or extends it.
func DefaultGPUs() []GPU {
	names := []string{"RTX 4090", "RTX 3090", "RTX 6000 Ada", "L40S", "L20", "L4", "A10", "A10G", "A100-40GB", "A100-80GB",
		"A800-80GB", "H100", "H100 PCIe", "H800", "H20", "H200", "Ascend 910B"}
	out := make([]GPU, 0, len(names))
	for _, n := range names {
		s, ok := gpu.Lookup(n)
		if !ok || s.Model != n {
			// A programming error, caught by every planner test.
			panic("plan: GPU " + n + " is not a model of package gpu")
		}
		out = append(out, GPU{Model: s.Model, TFLOPS: s.TFLOPS, VRAMGB: s.MemoryGB, BandwidthGBs: s.BandwidthGBs,
			NVLink: s.NVLink, Aliases: s.Aliases, Source: s.Source})
	}
	return out
}

// gpuIndex maps every name and alias key (gpu.Key) of a table to its position.
func gpuIndex(gs []GPU) map[string]int {
	idx := make(map[string]int, len(gs)*2)
	for i, g := range gs {
		for _, a := range g.Aliases {
			if _, taken := idx[gpu.Key(a)]; !taken {
				idx[gpu.Key(a)] = i
			}
		}
	}
	// Canonical names win over aliases ("A100" alone is the 40 GB card, but
	// never shadows a model really named so).
	for i, g := range gs {
		idx[gpu.Key(g.Model)] = i
	}
	return idx
}
