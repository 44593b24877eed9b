package gpu

import "strings"

// IsWord reports tokens that mark text as being about a GPU even when
// finops does not know the exact SKU.
func IsWord(t string) bool {
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

// LooksLike reports whether text names a GPU or a GPU instance family, so
// a caller can flag a GPU SKU the catalog does not know instead of silently
// treating it as non-GPU spend. It matches whole words: the "GPU" inside a
// SKU id such as "F9GPUA3E29X6GJVE" does not count.
func LooksLike(text string) bool {
	for _, t := range tokens(text) {
		if IsWord(t) {
			return true
		}
	}
	low := strings.ToLower(text)
	for _, f := range strings.FieldsFunc(low, func(r rune) bool { return !isInstanceRune(r) }) {
		if LooksLikeInstance(f) {
			return true
		}
	}
	return false
}

// LooksLikeInstance matches the GPU instance families of the big clouds:
// AWS p*/g*/dl*/trn*/inf*, GCP a2/a3/a4/g2/g4, Azure N-series.
func LooksLikeInstance(t string) bool {
	if fam, rest, ok := strings.Cut(t, "."); ok && len(fam) >= 2 {
		switch {
		case fam == "ecs":
			return isAlibabaGPUFamily(rest)
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
