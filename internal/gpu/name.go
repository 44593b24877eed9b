package gpu

import (
	"strconv"
	"strings"
	"unicode"
)

// GPUName recognises the GPU text of rental platforms and drivers, with an
// optional count: "RTX 4090 * 2", "4090*2", "2 x A100-SXM4-80GB",
// "NVIDIA H100 80GB HBM3", "Tesla T4". count is 1 when the text has none.
func (c *Catalog) GPUName(text string) (model string, count int, ok bool) {
	for _, cand := range splitGPUCount(text) {
		// A vGPU profile or MIG instance names its parent card too: read
		// first, it is that slice, never the whole card (Slice.Name).
		if sl, found := c.ParseSlice(cand.name); found {
			return sl.Name(), cand.count, true
		}
		if m, found := c.resolveGPU(cand.name); found {
			return m, cand.count, true
		}
	}
	return "", 0, false
}

// Model is the canonical model of a driver's GPU name when c knows the chip,
// else the name itself, so unknown GPUs stay apart ("" stays ""). A nil
// Catalog knows the built-in names.
func (c *Catalog) Model(name string) string {
	if m, _, ok := c.GPUName(name); ok {
		return m
	}
	return name
}

// Canonical is the canonical model GPU text names by the built-in names
// ("NVIDIA A100 80GB PCIe", "2 x A100-SXM4-80GB" → A100-80GB), the reading
// ingest records for it; ok is false when it names no model finops knows.
// The config and the review compare model names by it, so a price or a
// purchase written in a driver's spelling meets the billed model.
func Canonical(text string) (model string, ok bool) {
	var builtin *Catalog
	m, _, ok := builtin.GPUName(text)
	return m, ok
}

// Model is Canonical's model, else the name itself, as Catalog.Model reads
// it without the config's aliases.
func Model(name string) string {
	var builtin *Catalog
	return builtin.Model(name)
}

// GPUText returns the model and count to record for GPU text: the canonical
// model when known, else the text itself (minus any count) when it looks like
// a GPU, so an unknown GPU is still a GPU line and shows up by name in data
// quality. ok is false for text that names no GPU ("无卡模式", "CPU").
func (c *Catalog) GPUText(text string) (model string, count int, ok bool) {
	if m, n, ok := c.GPUName(text); ok {
		return m, n, true
	}
	cands := splitGPUCount(text)
	if len(cands) == 0 || !LooksLike(text) {
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
	if err != nil || n < 1 || n > MaxPerMachine || name == "" {
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
	if err != nil || n < 1 || n > MaxPerMachine {
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

// normaliseName upper-cases and collapses separators so that
// "A100-SXM4-80GB" and "a100 sxm4 80gb" compare equal.
func normaliseName(s string) string {
	return strings.Join(tokens(s), " ")
}

func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// tokenModels are the tokens that name one model on their own, whatever
// the rest of the name says (resolveGPU handles the A100's memory, the
// RTX 6000 Ada and the Ascend 910B variants). A read-only table.
var tokenModels = map[string]string{
	"A800": gpuA800, "H100": gpuH100, "H200": gpuH200, "H800": gpuH800, "H20": gpuH20,
	"L40S": gpuL40S, "L4": gpuL4, "L20": gpuL20, "A10G": gpuA10G, "A10": gpuA10, "T4": gpuT4,
	"V100": gpuV100, "V100S": gpuV100, "M60": gpuM60, "4090": gpu4090, "4090D": gpu4090D, "5090": gpu5090,
	"A40": gpuA40, "A30": gpuA30, "L40": gpuL40, "A6000": gpuA6000, "B200": gpuB200, "MI300X": gpuMI300X,
	"P100": gpuP100, "3090": gpu3090,
}

// resolveGPU maps a GPU name without count to its canonical model. It works
// on whole tokens so that "H200" is never read as "H20".
func (c *Catalog) resolveGPU(name string) (string, bool) {
	toks := tokens(name)
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
		switch {
		case t == "A100" && has("80G"):
			return gpuA100_80, true
		case t == "A100":
			return gpuA100_40, true
		case t == "6000" && has("ADA"):
			return gpu6000Ada, true
		case strings.HasPrefix(t, "910B"):
			return gpu910B, true
		}
		if m, ok := tokenModels[t]; ok {
			return m, true
		}
	}
	return "", false
}
