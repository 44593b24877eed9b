package ingest

import (
	"strconv"
	"strings"
	"unicode"
)

// Catalog recognises GPU machines: cloud instance types with a fixed GPU
// complement, and the GPU names rental platforms and nvidia-smi print.
// Build one with DefaultCatalog and extend it from the config; a Catalog is
// not safe for concurrent Add and lookup.
type Catalog struct {
	instances map[string]gpuSpec // lower-case instance type → GPUs
	aliases   map[string]string  // normalised GPU name → canonical model
}

type gpuSpec struct {
	model string
	count int
}

// Canonical GPU model names. Reports, the price catalog and the resource map
// all use these spellings, so two sources naming the same chip differently
// still meet.
const (
	gpuA100_40 = "A100-40GB"
	gpuA100_80 = "A100-80GB"
	gpuH100    = "H100"
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
)

// maxGPUsPerMachine bounds counts read from free text: "2x4090" must not
// become 4090 GPUs of model "2".
const maxGPUsPerMachine = 64

// DefaultCatalog returns the instance types and GPU names finops knows out of
// the box. Each call returns a fresh catalog, so callers may Add to it.
func DefaultCatalog() *Catalog {
	c := &Catalog{instances: map[string]gpuSpec{}, aliases: map[string]string{}}
	add := func(model string, count int, types ...string) {
		for _, t := range types {
			c.Add(t, model, count)
		}
	}

	// AWS
	add(gpuM60, 1, "g3s.xlarge", "g3.4xlarge")
	add(gpuM60, 2, "g3.8xlarge")
	add(gpuM60, 4, "g3.16xlarge")
	add(gpuT4, 1, "g4dn.xlarge", "g4dn.2xlarge", "g4dn.4xlarge", "g4dn.8xlarge", "g4dn.16xlarge")
	add(gpuT4, 4, "g4dn.12xlarge")
	add(gpuT4, 8, "g4dn.metal")
	for _, f := range []struct{ family, model string }{{"g5", gpuA10G}, {"g6", gpuL4}, {"g6e", gpuL40S}} {
		for _, size := range []string{"xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"} {
			add(f.model, 1, f.family+"."+size)
		}
		add(f.model, 4, f.family+".12xlarge", f.family+".24xlarge")
		add(f.model, 8, f.family+".48xlarge")
	}
	add(gpuV100, 1, "p3.2xlarge")
	add(gpuV100, 4, "p3.8xlarge")
	add(gpuV100, 8, "p3.16xlarge", "p3dn.24xlarge")
	add(gpuA100_40, 8, "p4d.24xlarge")
	add(gpuA100_80, 8, "p4de.24xlarge")
	add(gpuH100, 8, "p5.48xlarge")
	add(gpuH200, 8, "p5e.48xlarge", "p5en.48xlarge")

	// GCP
	for _, n := range []int{1, 2, 4, 8} {
		g := strconv.Itoa(n) + "g"
		add(gpuA100_40, n, "a2-highgpu-"+g)
		add(gpuA100_80, n, "a2-ultragpu-"+g)
		add(gpuH100, n, "a3-highgpu-"+g)
	}
	add(gpuA100_40, 16, "a2-megagpu-16g")
	add(gpuH100, 8, "a3-megagpu-8g", "a3-edgegpu-8g")
	add(gpuH200, 8, "a3-ultragpu-8g")
	add(gpuL4, 1, "g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16", "g2-standard-32")
	add(gpuL4, 2, "g2-standard-24")
	add(gpuL4, 4, "g2-standard-48")
	add(gpuL4, 8, "g2-standard-96")

	// Azure
	add(gpuA100_80, 1, "Standard_NC24ads_A100_v4")
	add(gpuA100_80, 2, "Standard_NC48ads_A100_v4")
	add(gpuA100_80, 4, "Standard_NC96ads_A100_v4")
	add(gpuA100_40, 8, "Standard_ND96asr_v4")
	add(gpuA100_80, 8, "Standard_ND96amsr_A100_v4")
	add(gpuH100, 1, "Standard_NC40ads_H100_v5")
	add(gpuH100, 2, "Standard_NC80adis_H100_v5")
	add(gpuH100, 8, "Standard_ND96isr_H100_v5")
	add(gpuT4, 1, "Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3")
	add(gpuT4, 4, "Standard_NC64as_T4_v3")
	add(gpuA10, 1, "Standard_NV36ads_A10_v5")
	add(gpuA10, 2, "Standard_NV72ads_A10_v5")
	return c
}

// Add records that an instance type carries count GPUs of model. Config
// extensions use it for instance types finops does not ship; a later Add of
// the same type replaces the earlier one.
func (c *Catalog) Add(instanceType, model string, count int) {
	if c.instances == nil {
		c.instances = map[string]gpuSpec{}
	}
	c.instances[strings.ToLower(strings.TrimSpace(instanceType))] = gpuSpec{model: model, count: count}
}

// AddAlias makes GPUName recognise name (as a rental platform or driver
// prints it, without a count) as model.
func (c *Catalog) AddAlias(name, model string) {
	if c.aliases == nil {
		c.aliases = map[string]string{}
	}
	c.aliases[normaliseGPUName(name)] = model
}

// Instance returns the GPUs of an instance type, case-insensitively. Azure
// sizes may be given with or without their "Standard_" prefix.
func (c *Catalog) Instance(instanceType string) (model string, count int, ok bool) {
	if c == nil {
		return "", 0, false
	}
	k := strings.ToLower(strings.TrimSpace(instanceType))
	s, ok := c.instances[k]
	if !ok && !strings.HasPrefix(k, "standard_") {
		s, ok = c.instances["standard_"+k]
	}
	return s.model, s.count, ok
}

// FindInstance scans free text (a charge description, a usage type such as
// "USE1-BoxUsage:g5.xlarge") for a known instance type and returns the first.
func (c *Catalog) FindInstance(text string) (instanceType, model string, count int, ok bool) {
	if c == nil {
		return "", "", 0, false
	}
	for len(text) > 0 {
		i := strings.IndexFunc(text, isInstanceRune)
		if i < 0 {
			break
		}
		text = text[i:]
		j := strings.IndexFunc(text, func(r rune) bool { return !isInstanceRune(r) })
		if j < 0 {
			j = len(text)
		}
		tok := strings.TrimRight(text[:j], "._-")
		text = text[j:]
		// Instance types have a family/size separator; plain words and prices
		// ("$1.624") are skipped cheaply.
		if len(tok) < 5 || len(tok) > 40 || !strings.ContainsAny(tok, ".-_") {
			continue
		}
		if m, n, found := c.Instance(tok); found {
			return tok, m, n, true
		}
	}
	return "", "", 0, false
}

func isInstanceRune(r rune) bool {
	return r == '.' || r == '-' || r == '_' || r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// GPUName recognises the GPU text of rental platforms and drivers, with an
// optional count: "RTX 4090 * 2", "4090*2", "2 x A100-SXM4-80GB",
// "NVIDIA H100 80GB HBM3", "Tesla T4". count is 1 when the text has none.
func (c *Catalog) GPUName(text string) (model string, count int, ok bool) {
	for _, cand := range splitGPUCount(text) {
		if m, found := c.resolveGPU(cand.name); found {
			return m, cand.count, true
		}
	}
	return "", 0, false
}

// gpuText returns the model and count to record for GPU text: the canonical
// model when known, else the text itself (minus any count) when it looks like
// a GPU, so an unknown GPU is still a GPU line and shows up by name in data
// quality. ok is false for text that names no GPU ("无卡模式", "CPU").
func (c *Catalog) gpuText(text string) (model string, count int, ok bool) {
	if m, n, ok := c.GPUName(text); ok {
		return m, n, true
	}
	cands := splitGPUCount(text)
	if len(cands) == 0 || !LooksLikeGPU(text) {
		return "", 0, false
	}
	return cands[0].name, cands[0].count, true
}

type gpuCount struct {
	name  string
	count int
}

// splitGPUCount lists the readings of "model × count" text, most likely
// first; the caller takes the first whose model it knows.
func splitGPUCount(text string) []gpuCount {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil
	}
	var out []gpuCount
	// Chinese platforms append 卡/张 ("2卡"); English ones "GPUs".
	trimmed := strings.TrimSpace(strings.TrimRight(t, "卡张"))
	if low := strings.ToLower(trimmed); strings.HasSuffix(low, "gpus") || strings.HasSuffix(low, "gpu") {
		trimmed = strings.TrimSpace(trimmed[:strings.LastIndex(low, "gpu")])
	}
	// Trailing count: "RTX 4090 * 2", "4090*2", "A100x8".
	if name, n, ok := trailingCount(trimmed); ok {
		out = append(out, gpuCount{name, n})
	}
	// Leading count: "2 x A100", "8xH100", "2×4090".
	if name, n, ok := leadingCount(trimmed); ok {
		out = append(out, gpuCount{name, n})
	}
	return append(out, gpuCount{t, 1})
}

func trailingCount(t string) (string, int, bool) {
	end := len(t)
	i := end
	for i > 0 && t[i-1] >= '0' && t[i-1] <= '9' {
		i--
	}
	if i == end || end-i > 3 {
		return "", 0, false
	}
	digits := i
	for i > 0 && t[i-1] == ' ' {
		i--
	}
	var sep string
	switch {
	case strings.HasSuffix(t[:i], "×"):
		sep = "×"
	case i > 0 && t[i-1] == '*':
		sep = "*"
	case i > 0 && (t[i-1] == 'x' || t[i-1] == 'X'):
		sep = "x"
		// "MX150" is a model, "4090x2" and "A100 x 8" are counts.
		if i-2 >= 0 && !(t[i-2] == ' ' || t[i-2] >= '0' && t[i-2] <= '9') {
			return "", 0, false
		}
	default:
		return "", 0, false
	}
	name := strings.TrimSpace(t[:i-len(sep)])
	n, err := strconv.Atoi(t[digits:end])
	if err != nil || n < 1 || n > maxGPUsPerMachine || name == "" {
		return "", 0, false
	}
	return name, n, true
}

func leadingCount(t string) (string, int, bool) {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i > 3 {
		return "", 0, false
	}
	n, err := strconv.Atoi(t[:i])
	if err != nil || n < 1 || n > maxGPUsPerMachine {
		return "", 0, false
	}
	rest := strings.TrimLeft(t[i:], " ")
	switch {
	case strings.HasPrefix(rest, "×"):
		rest = rest[len("×"):]
	case strings.HasPrefix(rest, "*"), strings.HasPrefix(rest, "x"), strings.HasPrefix(rest, "X"):
		rest = rest[1:]
	default:
		return "", 0, false
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return "", 0, false
	}
	return rest, n, true
}

// normaliseGPUName upper-cases and collapses separators so that
// "A100-SXM4-80GB" and "a100 sxm4 80gb" compare equal.
func normaliseGPUName(s string) string {
	return strings.Join(gpuTokens(s), " ")
}

func gpuTokens(s string) []string {
	return strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// resolveGPU maps a GPU name without count to its canonical model. It works
// on whole tokens so that "H200" is never read as "H20".
func (c *Catalog) resolveGPU(name string) (string, bool) {
	toks := gpuTokens(name)
	if len(toks) == 0 {
		return "", false
	}
	if c != nil && len(c.aliases) > 0 {
		if m, ok := c.aliases[strings.Join(toks, " ")]; ok {
			return m, true
		}
	}
	has := func(prefix string) bool {
		for _, t := range toks {
			if strings.HasPrefix(t, prefix) {
				return true
			}
		}
		return false
	}
	for _, t := range toks {
		switch t {
		case "A100":
			if has("80G") {
				return gpuA100_80, true
			}
			return gpuA100_40, true
		case "A800":
			return gpuA800, true
		case "H100":
			return gpuH100, true
		case "H200":
			return gpuH200, true
		case "H800":
			return gpuH800, true
		case "H20":
			return gpuH20, true
		case "L40S":
			return gpuL40S, true
		case "L4":
			return gpuL4, true
		case "L20":
			return gpuL20, true
		case "A10G":
			return gpuA10G, true
		case "A10":
			return gpuA10, true
		case "T4":
			return gpuT4, true
		case "V100", "V100S":
			return gpuV100, true
		case "M60":
			return gpuM60, true
		case "4090":
			return gpu4090, true
		case "3090":
			return gpu3090, true
		case "6000":
			if has("ADA") {
				return gpu6000Ada, true
			}
		}
		if strings.HasPrefix(t, "910B") {
			return gpu910B, true
		}
	}
	return "", false
}

// isGPUWord reports tokens that mark text as being about a GPU even when
// finops does not know the exact SKU.
func isGPUWord(t string) bool {
	switch t {
	case "GPU", "GPUS", "NVIDIA", "TESLA", "GEFORCE", "QUADRO", "RTX", "GTX", "CUDA", "ASCEND", "INSTINCT",
		"A10", "A10G", "A16", "A30", "A40", "A100", "A800", "A2000", "A4000", "A5000", "A6000",
		"H100", "H200", "H800", "H20", "GH200", "B100", "B200", "GB200",
		"L4", "L20", "L40", "L40S", "T4", "T4G", "V100", "V100S", "P100", "P40", "K80", "M60", "K520",
		"3080", "3090", "4080", "4090", "4090D", "5090",
		"MI210", "MI250", "MI250X", "MI300", "MI300X":
		return true
	}
	return strings.HasSuffix(t, "GPU") || strings.HasPrefix(t, "910B")
}

// LooksLikeGPU reports whether text names a GPU or a GPU instance family, so
// a caller can flag a GPU SKU the catalog does not know instead of silently
// treating it as non-GPU spend. It matches whole words: the "GPU" inside a
// SKU id such as "F9GPUA3E29X6GJVE" does not count.
func LooksLikeGPU(text string) bool {
	for _, t := range gpuTokens(text) {
		if isGPUWord(t) {
			return true
		}
	}
	low := strings.ToLower(text)
	for _, f := range strings.FieldsFunc(low, func(r rune) bool { return !isInstanceRune(r) }) {
		if looksLikeGPUInstance(f) {
			return true
		}
	}
	return false
}

// looksLikeGPUInstance matches the GPU instance families of the big clouds:
// AWS p*/g*/dl*/trn*/inf*, GCP a2/a3/a4/g2/g4, Azure N-series.
func looksLikeGPUInstance(t string) bool {
	if fam, _, ok := strings.Cut(t, "."); ok && len(fam) >= 2 {
		switch {
		case fam[0] == 'p' || fam[0] == 'g':
			return fam[1] >= '2' && fam[1] <= '9'
		case strings.HasPrefix(fam, "dl1"), strings.HasPrefix(fam, "trn"), strings.HasPrefix(fam, "inf"):
			return true
		}
		return false
	}
	for _, p := range []string{"a2-", "a3-", "a4-", "g2-", "g4-"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	if s, ok := strings.CutPrefix(t, "standard_"); ok && len(s) > 2 && s[0] == 'n' {
		return s[1] == 'c' || s[1] == 'd' || s[1] == 'v' || s[1] == 'g'
	}
	return false
}
