package gpu

import (
	"strconv"
	"strings"
)

// Alibaba Cloud (Aliyun) GPU instance types, as 实例规格 / InstanceSpec
// name them: ecs.<family>-c<N>g1.<size>, e.g. ecs.gn7i-c8g1.2xlarge. The
// family says the GPU (the letter after the generation: i = A10 on gn7, T4
// on gn6; e = A100 80 GB on gn7, V100 32 GB on gn6; v = V100 16 GB), "cNg1"
// that the type has one GPU per N vCPUs, and the size the vCPUs (large = 2,
// xlarge = 4, Mxlarge = 4M). So ecs.gn7i-c32g1.16xlarge has 64 vCPUs and
// 64 / 32 = 2 A10s. Bare-metal types (ecs.ebmgn7e.32xlarge) have a fixed
// complement.
//
// Sources: Alibaba Cloud's "Instance naming conventions" (EGS) page gives the
// sizes and the letters v (V100 16 GB) and 6e (V100 32 GB); its API examples
// name ecs.gn5i-c2g1.large "1*NVIDIA_P4". The Ampere families (gn7 A100 40 GB,
// gn7e A100 SXM4 80 GB, gn7i A10, gn7s A30) follow Alibaba's family pages as
// known, not checked against a stored copy (docs/INGEST.md says so).
// Families not listed (gn8is, gn8v, …) are reported as unknown GPUs rather
// than guessed; instance_types in the config adds or corrects a type.
var alibabaFamilies = map[string]string{
	"gn5":  gpuP100,
	"gn5i": gpuP4,
	"gn6i": gpuT4,
	"gn6v": gpuV100,
	"gn6e": gpuV100, // V100 SXM2 32 GB
	"gn7":  gpuA100_40,
	"gn7e": gpuA100_80,
	"gn7i": gpuA10,
	"gn7s": gpuA30,
}

// alibabaBareMetal are the bare-metal GPU types, which do not follow the
// cNg1 pattern.
var alibabaBareMetal = map[string]complement{
	"ecs.ebmgn6i.24xlarge": {gpuT4, 4},
	"ecs.ebmgn6v.24xlarge": {gpuV100, 8},
	"ecs.ebmgn6e.24xlarge": {gpuV100, 8},
	"ecs.ebmgn7i.32xlarge": {gpuA10, 4},
	"ecs.ebmgn7e.32xlarge": {gpuA100_80, 8},
}

// alibabaInstance reads a lower-case Alibaba GPU instance type.
func alibabaInstance(t string) (complement, bool) {
	if s, ok := alibabaBareMetal[t]; ok {
		return s, true
	}
	rest, ok := strings.CutPrefix(t, "ecs.")
	if !ok {
		return complement{}, false
	}
	famRatio, size, ok := strings.Cut(rest, ".")
	if !ok {
		return complement{}, false
	}
	fam, ratio, ok := strings.Cut(famRatio, "-")
	model := alibabaFamilies[fam]
	if !ok || model == "" {
		return complement{}, false
	}
	// ratio "c8g1": 8 vCPUs per GPU.
	perGPU, ok := strings.CutPrefix(ratio, "c")
	if !ok {
		return complement{}, false
	}
	perGPU, ok = strings.CutSuffix(perGPU, "g1")
	if !ok {
		return complement{}, false
	}
	n, err := strconv.Atoi(perGPU)
	vcpus := alibabaVCPUs(size)
	if err != nil || n < 1 || vcpus < n || vcpus%n != 0 || vcpus/n > MaxPerMachine {
		return complement{}, false
	}
	return complement{model: model, count: vcpus / n}, true
}

// alibabaVCPUs reads the vCPUs of a size: large 2, xlarge 4, 16xlarge 64.
func alibabaVCPUs(size string) int {
	switch size {
	case "large":
		return 2
	case "xlarge":
		return 4
	}
	m, ok := strings.CutSuffix(size, "xlarge")
	if !ok {
		return 0
	}
	k, err := strconv.Atoi(m)
	if err != nil || k < 1 || k > 256 {
		return 0
	}
	return 4 * k
}

// isAlibabaGPUFamily reports the GPU instance families of Alibaba Cloud
// (after "ecs."): gn*, ebmgn*, sccgn*, vgn*, sgn*.
func isAlibabaGPUFamily(rest string) bool {
	for _, p := range []string{"gn", "ebmgn", "sccgn", "vgn", "sgn"} {
		if s, ok := strings.CutPrefix(rest, p); ok && s != "" && s[0] >= '0' && s[0] <= '9' {
			return true
		}
	}
	return false
}
