package gpu

import (
	"strings"
	"unicode"
)

// Canonical GPU model names. Reports, the price catalog, the resource map and
// the planner all use these spellings, so two sources naming the same chip
// differently still meet.
const (
	gpuA100_40 = "A100-40GB"
	gpuA100_80 = "A100-80GB"
	gpuH100    = "H100"
	gpuH100P   = "H100 PCIe"
	gpuH200    = "H200"
	gpuL40S    = "L40S"
	gpuL4      = "L4"
	gpuA10G    = "A10G"
	gpuA10     = "A10"
	gpuT4      = "T4"
	gpuV100    = "V100"
	gpuM60     = "M60"
	gpu4090    = "RTX 4090"
	gpu3090    = "RTX 3090"
	gpuA800    = "A800-80GB"
	gpuH800    = "H800"
	gpuH20     = "H20"
	gpuL20     = "L20"
	gpu6000Ada = "RTX 6000 Ada"
	gpu910B    = "Ascend 910B"

	// Rented by the hour on rental platforms (RunPod, AutoDL, Vast.ai) and
	// in older Alibaba Cloud families.
	gpuA40    = "A40"
	gpuA30    = "A30"
	gpuL40    = "L40"
	gpuA6000  = "RTX A6000"
	gpu5090   = "RTX 5090"
	gpu4090D  = "RTX 4090D"
	gpuB200   = "B200"
	gpuMI300X = "MI300X"
	gpuP100   = "P100"
	gpuP4     = "P4"
)

// Spec is one GPU model and what the planner's memory, compute and decode
// formulas need. A zero figure is unknown: finops does not guess one.
type Spec struct {
	Model        string   // canonical name
	Aliases      []string // other names Lookup accepts for it
	TFLOPS       float64  // dense BF16 tensor TFLOPS (no sparsity)
	MemoryGB     float64  // as marketed; read as 10⁹ bytes, never more than the card has
	BandwidthGBs float64  // memory bandwidth, GB/s
	NVLink       bool     // a fast card-to-card link (NVLink, HCCS): sharded training is practical
	Source       string   // where the figures come from
	// RatedWatts is the board power the vendor rates the card at (TDP, TGP
	// or maximum board power), the highest of the variants the name covers
	// (an A100 is 400 W as SXM4, 250–300 W as PCIe; bills and logs record
	// both as one model): ingest refuses a power reading above 1.5× it
	// (PowerBound). 0: not known.
	RatedWatts float64
}

// Specs returns every model finops knows, a fresh slice per call. TFLOPS
// and memory of the planner's cards are metrics.md's defaults; memory
// bandwidth and the cards common on Chinese rental platforms (A800, H800,
// H20, L20, RTX 3090) come from the vendors' datasheets. NVLink marks the
// parts built for multi-card training (SXM/OAM modules, H100 PCIe with its
// bridge, Ascend's HCCS); consumer and PCIe inference cards have none (the
// RTX 4090 not even peer-to-peer).
//
// The H100 PCIe is its own row for the planner (756 TFLOPS, not 989), but
// GPU text that names it is recorded as H100 by the recogniser (name.go):
// bills and price catalogs price the two together.
func Specs() []Spec {
	const spec, sheet = "metrics.md", "vendor datasheet"
	return []Spec{
		// GeForce RTX 4090 spec page: total graphics power 450 W.
		{Model: gpu4090, TFLOPS: 165, MemoryGB: 24, BandwidthGBs: 1008, Aliases: []string{"4090", "GeForce RTX 4090"}, RatedWatts: 450, Source: spec},
		// GeForce RTX 3090 spec page: 350 W.
		{Model: gpu3090, TFLOPS: 71, MemoryGB: 24, BandwidthGBs: 936, Aliases: []string{"3090", "GeForce RTX 3090"}, RatedWatts: 350, Source: sheet},
		// RTX 6000 Ada datasheet: max power 300 W.
		{Model: gpu6000Ada, TFLOPS: 364, MemoryGB: 48, BandwidthGBs: 960, Aliases: []string{"RTX 6000 Ada Generation", "6000 Ada"}, RatedWatts: 300, Source: spec},
		// L40S datasheet: max power 350 W.
		{Model: gpuL40S, TFLOPS: 362, MemoryGB: 48, BandwidthGBs: 864, RatedWatts: 350, Source: spec},
		// L20 datasheet: 275 W.
		{Model: gpuL20, TFLOPS: 119.5, MemoryGB: 48, BandwidthGBs: 864, RatedWatts: 275, Source: sheet},
		// L4 datasheet: max thermal design power 72 W.
		{Model: gpuL4, TFLOPS: 121, MemoryGB: 24, BandwidthGBs: 300, RatedWatts: 72, Source: spec},
		// A10 datasheet: max power 150 W.
		{Model: gpuA10, TFLOPS: 125, MemoryGB: 24, BandwidthGBs: 600, RatedWatts: 150, Source: spec},
		// AWS's variant of the A10 in its G5 instances; NVIDIA publishes no
		// datasheet for it. AWS's G5 page and instance tables give 24 GB of
		// GDDR6 per GPU and no NVLink (g5.12xlarge and up join their 4 or 8
		// GPUs by PCIe). It has the A10's 600 GB/s but about 70 dense BF16
		// tensor TFLOPS, not the A10's 125 (Baseten, "NVIDIA A10 vs A10G for
		// ML model inference", https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/);
		// a BF16 GEMM measured on one reaches 69.5 TFLOPS
		// (github.com/zzc0721/torch-performance-test-data issue 126).
		// Its power: the 300 W limit nvidia-smi -q shows on AWS G5 instances.
		{Model: gpuA10G, TFLOPS: 70, MemoryGB: 24, BandwidthGBs: 600, Aliases: []string{"NVIDIA A10G"}, RatedWatts: 300,
			Source: "AWS G5 instance page (memory, PCIe); Baseten's A10 vs A10G spec table (bandwidth, BF16 TFLOPS)"},
		// A100 datasheet: SXM4 400 W, PCIe 250 W.
		{Model: gpuA100_40, TFLOPS: 312, MemoryGB: 40, BandwidthGBs: 1555, NVLink: true, Aliases: []string{"A100 40G", "A100-SXM4-40GB", "A100-PCIE-40GB", "A100"}, RatedWatts: 400, Source: spec},
		// A100 80GB datasheet: SXM4 400 W, PCIe 300 W.
		{Model: gpuA100_80, TFLOPS: 312, MemoryGB: 80, BandwidthGBs: 2039, NVLink: true, Aliases: []string{"A100 80G", "A100-SXM4-80GB", "A100-SXM-80GB", "A100-PCIE-80GB"}, RatedWatts: 400, Source: spec},
		// A800 datasheet: SXM4 400 W, PCIe 300 W.
		{Model: gpuA800, TFLOPS: 312, MemoryGB: 80, BandwidthGBs: 2039, NVLink: true, Aliases: []string{"A800", "A800 80G", "A800-SXM4-80GB"}, RatedWatts: 400, Source: sheet},
		// H100 datasheet: SXM5 up to 700 W (a PCIe card, 350 W, is recorded as H100 too).
		{Model: gpuH100, TFLOPS: 989, MemoryGB: 80, BandwidthGBs: 3350, NVLink: true, Aliases: []string{"H100 SXM", "H100-SXM5-80GB", "H100 80GB HBM3"}, RatedWatts: 700, Source: spec + " (H100 SXM)"},
		// H100 PCIe datasheet: 350 W.
		{Model: gpuH100P, TFLOPS: 756, MemoryGB: 80, BandwidthGBs: 2000, NVLink: true, Aliases: []string{"H100-PCIE-80GB"}, RatedWatts: 350, Source: spec},
		// H800 SXM5: 700 W, as the H100 SXM5.
		{Model: gpuH800, TFLOPS: 989, MemoryGB: 80, BandwidthGBs: 3350, NVLink: true, Aliases: []string{"H800 SXM"}, RatedWatts: 700, Source: sheet},
		// H20 datasheet: 400 W.
		{Model: gpuH20, TFLOPS: 148, MemoryGB: 96, BandwidthGBs: 4000, NVLink: true, RatedWatts: 400, Source: sheet},
		// H200 datasheet: SXM up to 700 W (NVL 600 W).
		{Model: gpuH200, TFLOPS: 989, MemoryGB: 141, BandwidthGBs: 4800, NVLink: true, Aliases: []string{"H200 SXM"}, RatedWatts: 700, Source: spec},
		{Model: gpu910B, TFLOPS: 320, MemoryGB: 64, BandwidthGBs: 1600, NVLink: true, Aliases: []string{"910B"}, Source: spec + " (approximate; bandwidth approximate)"},

		// Recognised in bills and telemetry; the planner does not offer them.
		// Figures only where a datasheet gives them for the one card the name
		// means (V100 and P100 come with two memory sizes; T4, V100, M60, P100
		// and P4 have no BF16).
		// T4 datasheet: 70 W.
		{Model: gpuT4, MemoryGB: 16, RatedWatts: 70, Source: sheet},
		// V100 datasheet: SXM2 300 W, PCIe 250 W; V100 SXM3 (DGX-2) 350 W.
		{Model: gpuV100, Aliases: []string{"V100S"}, RatedWatts: 350},
		// M60 datasheet: 225–300 W per board of two GPUs.
		{Model: gpuM60, MemoryGB: 8, RatedWatts: 300, Source: sheet + " (per GPU; two on a board)"},
		// A40 datasheet: 300 W.
		{Model: gpuA40, TFLOPS: 149.7, MemoryGB: 48, BandwidthGBs: 696, RatedWatts: 300, Source: sheet},
		// A30 datasheet: 165 W.
		{Model: gpuA30, TFLOPS: 165, MemoryGB: 24, BandwidthGBs: 933, RatedWatts: 165, Source: sheet},
		// L40 datasheet: 300 W.
		{Model: gpuL40, TFLOPS: 181.05, MemoryGB: 48, BandwidthGBs: 864, RatedWatts: 300, Source: sheet},
		// RTX A6000 datasheet: 300 W.
		{Model: gpuA6000, MemoryGB: 48, BandwidthGBs: 768, Aliases: []string{"A6000"}, RatedWatts: 300, Source: sheet},
		// GeForce RTX 5090 spec page: 575 W.
		{Model: gpu5090, MemoryGB: 32, Aliases: []string{"5090"}, RatedWatts: 575, Source: sheet},
		// GeForce RTX 4090 D spec page: 425 W.
		{Model: gpu4090D, MemoryGB: 24, Aliases: []string{"4090D"}, RatedWatts: 425, Source: sheet},
		// HGX B200: 1,000 W per GPU.
		{Model: gpuB200, RatedWatts: 1000},
		// AMD Instinct MI300X datasheet: 750 W.
		{Model: gpuMI300X, TFLOPS: 1307.4, MemoryGB: 192, BandwidthGBs: 5300, NVLink: true, RatedWatts: 750, Source: sheet + " (Infinity Fabric)"},
		// P100 datasheet: SXM2 300 W, PCIe 250 W.
		{Model: gpuP100, RatedWatts: 300},
		// Tesla P4 datasheet: 50–75 W.
		{Model: gpuP4, MemoryGB: 8, RatedWatts: 75, Source: sheet},
	}
}

// Lookup finds a model by its canonical name or an alias, compared by Key,
// else by the model Canonical reads the name as ("NVIDIA A100 80GB PCIe",
// "2 x A100-SXM4-80GB"), so every spelling ingest records as a model finds
// that model's figures. The table's own names come first: "H100 PCIe" is its
// own row, though bills record it as H100.
func Lookup(name string) (Spec, bool) {
	specs := Specs()
	if s, ok := byKey(specs, Key(name)); ok {
		return s, true
	}
	if m, ok := Canonical(name); ok {
		// A slice has its profile's memory, not its card's.
		if sl, ok := ParseSlice(m); ok {
			if parent, ok := byKey(specs, Key(sl.Parent)); ok {
				return sliceSpec(sl, parent), true
			}
			return Spec{}, false
		}
		return byKey(specs, Key(m))
	}
	return Spec{}, false
}

// byKey finds the row whose name, else one of whose aliases, has key k.
func byKey(specs []Spec, k string) (Spec, bool) {
	if k == "" {
		return Spec{}, false
	}
	for _, s := range specs {
		if Key(s.Model) == k {
			return s, true
		}
	}
	for _, s := range specs {
		for _, a := range s.Aliases {
			if Key(a) == k {
				return s, true
			}
		}
	}
	return Spec{}, false
}

// Key reduces a GPU name to a lookup key: upper case, letters and digits
// only, without the vendor words, so "A100-80GB", "a100 80gb" and
// "NVIDIA A100-80GB" are the same GPU.
func Key(name string) string {
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

// UnknownPowerBound is the most watts a plausible power reading of a GPU
// whose rated power the catalog does not know may show: 3 kW, twice the
// most any accelerator is rated at (a B200 1 kW; the largest of them 1.4 kW).
const UnknownPowerBound = 3000

// powerBoundFactor is how far above its rated power a reading may be: a
// board's draw overshoots its rating for milliseconds, and a sampler's mean
// over a second even less; 1.5× is far from any real reading and far below
// a reading in milliwatts (1,000×) or a broken exporter's 10¹² W.
const powerBoundFactor = 1.5

// PowerBound is the most watts a plausible power reading of model shows:
// 1.5× its rated power (Spec.RatedWatts), or UnknownPowerBound when the
// catalog does not know it (rated 0). It looks the model up each call:
// a reader of many readings keeps the answer per model.
func PowerBound(model string) (bound, rated float64) {
	if s, ok := Lookup(model); ok && s.RatedWatts > 0 {
		return powerBoundFactor * s.RatedWatts, s.RatedWatts
	}
	return UnknownPowerBound, 0
}
