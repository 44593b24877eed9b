package plan

import (
	"strings"
	"unicode"
)

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

// DefaultGPUs returns the GPU spec table: TFLOPS and VRAM from metrics.md's
// defaults, memory bandwidth and the additions (A800, H800, H20, L20,
// RTX 3090, common on Chinese rental platforms) from the vendors' datasheets.
// NVLink marks the parts built for multi-card training (SXM/OAM modules,
// H100 PCIe with its bridge, Ascend's HCCS); consumer and PCIe inference cards
// have none (the RTX 4090 not even peer-to-peer), so ZeRO-3 or FSDP across
// them runs far below the planner's MFU.
// Model names are the ones ingest records, so a price catalog shared with
// finops.yaml matches. The scenario file's gpus: list overrides or extends it.
func DefaultGPUs() []GPU {
	const spec, sheet = "metrics.md", "vendor datasheet"
	return []GPU{
		{Model: "RTX 4090", TFLOPS: 165, VRAMGB: 24, BandwidthGBs: 1008, Aliases: []string{"4090", "GeForce RTX 4090"}, Source: spec},
		{Model: "RTX 3090", TFLOPS: 71, VRAMGB: 24, BandwidthGBs: 936, Aliases: []string{"3090", "GeForce RTX 3090"}, Source: sheet},
		{Model: "RTX 6000 Ada", TFLOPS: 364, VRAMGB: 48, BandwidthGBs: 960, Aliases: []string{"RTX 6000 Ada Generation", "6000 Ada"}, Source: spec},
		{Model: "L40S", TFLOPS: 362, VRAMGB: 48, BandwidthGBs: 864, Source: spec},
		{Model: "L20", TFLOPS: 119.5, VRAMGB: 48, BandwidthGBs: 864, Source: sheet},
		{Model: "L4", TFLOPS: 121, VRAMGB: 24, BandwidthGBs: 300, Source: spec},
		{Model: "A10", TFLOPS: 125, VRAMGB: 24, BandwidthGBs: 600, Source: spec},
		{Model: "A100-40GB", TFLOPS: 312, VRAMGB: 40, BandwidthGBs: 1555, NVLink: true, Aliases: []string{"A100 40G", "A100-SXM4-40GB", "A100-PCIE-40GB", "A100"}, Source: spec},
		{Model: "A100-80GB", TFLOPS: 312, VRAMGB: 80, BandwidthGBs: 2039, NVLink: true, Aliases: []string{"A100 80G", "A100-SXM4-80GB", "A100-SXM-80GB", "A100-PCIE-80GB"}, Source: spec},
		{Model: "A800-80GB", TFLOPS: 312, VRAMGB: 80, BandwidthGBs: 2039, NVLink: true, Aliases: []string{"A800", "A800 80G", "A800-SXM4-80GB"}, Source: sheet},
		{Model: "H100", TFLOPS: 989, VRAMGB: 80, BandwidthGBs: 3350, NVLink: true, Aliases: []string{"H100 SXM", "H100-SXM5-80GB", "H100 80GB HBM3"}, Source: spec + " (H100 SXM)"},
		{Model: "H100 PCIe", TFLOPS: 756, VRAMGB: 80, BandwidthGBs: 2000, NVLink: true, Aliases: []string{"H100-PCIE-80GB"}, Source: spec},
		{Model: "H800", TFLOPS: 989, VRAMGB: 80, BandwidthGBs: 3350, NVLink: true, Aliases: []string{"H800 SXM"}, Source: sheet},
		{Model: "H20", TFLOPS: 148, VRAMGB: 96, BandwidthGBs: 4000, NVLink: true, Source: sheet},
		{Model: "H200", TFLOPS: 989, VRAMGB: 141, BandwidthGBs: 4800, NVLink: true, Aliases: []string{"H200 SXM"}, Source: spec},
		{Model: "Ascend 910B", TFLOPS: 320, VRAMGB: 64, BandwidthGBs: 1600, NVLink: true, Aliases: []string{"910B"}, Source: spec + " (approximate; bandwidth approximate)"},
	}
}

// gpuKey reduces a GPU name to a lookup key: upper case, letters and digits
// only, without the vendor words, so "A100-80GB", "a100 80gb" and
// "NVIDIA A100-80GB" are the same GPU.
func gpuKey(name string) string {
	s := strings.ToUpper(strings.TrimSpace(name))
	for _, p := range []string{"NVIDIA ", "GEFORCE ", "TESLA ", "HUAWEI "} {
		s = strings.TrimPrefix(s, p)
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

// gpuIndex maps every name and alias key of a table to its position.
func gpuIndex(gs []GPU) map[string]int {
	idx := make(map[string]int, len(gs)*2)
	for i, g := range gs {
		for _, a := range g.Aliases {
			if _, taken := idx[gpuKey(a)]; !taken {
				idx[gpuKey(a)] = i
			}
		}
	}
	// Canonical names win over aliases ("A100" alone is the 40 GB card, but
	// never shadows a model really named so).
	for i, g := range gs {
		idx[gpuKey(g.Model)] = i
	}
	return idx
}
