package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Byte sizes. Memory is reported in decimal gigabytes (1 GB = 10⁹ bytes)
// because that is how model cards and published tables state it ("7B in bf16
// ≈ 13.5 GB") and how GPU vendors market VRAM; the CUDA context and KV cache
// per token are binary quantities (1 GiB, 512 KiB) and are kept so.
const (
	gb  = 1e9
	kib = 1024.0
	gib = 1024.0 * 1024 * 1024
)

// Count is a number of parameters or tokens. The scenario file may give it as
// a number (7000000000, 7e9) or with a decimal suffix (7B, 6.74B, 500M, 2T,
// 200k), because "7B" is how people write model sizes, and a zero too many in
// 7000000000 is a tenfold budget error nobody spots.
type Count float64

// UnmarshalYAML reads a number or a suffixed number. Errors are yaml type
// errors carrying the line, so the loader can name the scenario and field.
func (c *Count) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return lineError(n, "want a number such as 7e9 or 7B")
	}
	v, err := ParseCount(n.Value)
	if err != nil {
		return lineError(n, err.Error())
	}
	*c = Count(v)
	return nil
}

// ParseCount parses "7B", "6.74e9", "500M", "2T", "200k", "1_000_000".
// Suffixes are decimal: k = 10³, M = 10⁶, B or G = 10⁹, T = 10¹².
func ParseCount(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t = strings.NewReplacer("_", "", ",", "").Replace(t)
	mult := 1.0
	if t != "" {
		switch t[len(t)-1] {
		case 'k', 'K':
			mult = 1e3
		case 'm', 'M':
			mult = 1e6
		case 'b', 'B', 'g', 'G':
			mult = 1e9
		case 't', 'T':
			mult = 1e12
		}
		if mult != 1 {
			t = strings.TrimSpace(t[:len(t)-1])
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number (write e.g. 7e9, 7B, 500M, 2T)", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	if math.IsInf(v*mult, 0) {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return v * mult, nil
}

// lineError is a yaml type error: yaml collects these with every other type
// error in the document instead of stopping at the first one.
func lineError(n *yaml.Node, msg string) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, msg)}}
}

// Dtype is a number format for weights or the KV cache.
type Dtype string

// The dtypes the planner knows, by canonical name.
const (
	FP32 Dtype = "fp32"
	BF16 Dtype = "bf16"
	FP16 Dtype = "fp16"
	FP8  Dtype = "fp8"
	INT8 Dtype = "int8"
	INT4 Dtype = "int4"
)

// Bytes is the size of one value: fp32 4, bf16/fp16 2, fp8/int8 1, int4 0.5.
func (d Dtype) Bytes() float64 {
	switch d {
	case FP32:
		return 4
	case BF16, FP16:
		return 2
	case FP8, INT8:
		return 1
	case INT4:
		return 0.5
	}
	return 0
}

// parseDtype accepts the usual spellings: float32, bfloat16, half, nf4, …
func parseDtype(s string) (Dtype, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "fp32", "float32", "f32":
		return FP32, true
	case "bf16", "bfloat16":
		return BF16, true
	case "fp16", "float16", "f16", "half":
		return FP16, true
	case "fp8", "float8", "e4m3", "e5m2":
		return FP8, true
	case "int8", "8bit", "8-bit":
		return INT8, true
	case "int4", "4bit", "4-bit", "nf4", "fp4":
		return INT4, true
	}
	return "", false
}

// dtypeNames is the list users see when a dtype is wrong.
const dtypeNames = "fp32, bf16, fp16, fp8, int8, int4"
