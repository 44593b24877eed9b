package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/finops-oss/finops/internal/spelling"
)

// File is a scenario file: the work planned for a period, the prices to
// budget it with and any overrides of the built-in GPU and model tables.
type File struct {
	Period    string             `yaml:"period"`    // a label such as 2027Q1; names the output files
	Currency  string             `yaml:"currency"`  // budget currency; default: finops.yaml's, else the prices'
	FX        map[string]float64 `yaml:"fx"`        // 1 unit of the key currency = value units of Currency
	SpanDays  *float64           `yaml:"span_days"` // default calendar span of every scenario (e.g. 91 for a quarter)
	Defaults  Defaults           `yaml:"defaults"`
	GPUs      []GPUSpec          `yaml:"gpus"`
	Models    []ModelSpec        `yaml:"models"`
	Prices    []Price            `yaml:"prices"`
	Scenarios []Scenario         `yaml:"scenarios"`

	name string  // the file's name in error messages
	loc  locator // where each entry and field sits in the file
}

// Defaults are the method's constants; every one can be overridden here and
// most per scenario. Nil means the metrics.md default.
type Defaults struct {
	MFU               *float64 `yaml:"mfu"`                // model FLOPs utilization, 0.35
	ConcurrencyBuffer *float64 `yaml:"concurrency_buffer"` // extra card-hours for queueing, 0.25
	Risk              *float64 `yaml:"risk"`               // risk coefficient, 1.3
	RiskHigh          *float64 `yaml:"risk_high"`          // top of the risk range, 1.5
	SpotInflation     *float64 `yaml:"spot_inflation"`     // runtime lost to interruptions on spot, 1.15
	Overhead          *float64 `yaml:"overhead"`           // framework overhead factor on memory, 1.2 (inference, data)
	TrainingOverhead  *float64 `yaml:"training_overhead"`  // the same for training kinds, 1.05
	CUDAContextGiB    *float64 `yaml:"cuda_context_gib"`   // per-GPU CUDA context, 1 GiB
	UsableVRAM        *float64 `yaml:"usable_vram"`        // share of VRAM a plan may fill, 0.9
	MonthlyMinDays    *float64 `yaml:"monthly_min_days"`   // shortest monthly rental, 30 days
}

// GPUSpec overrides or adds a row of the GPU spec table.
type GPUSpec struct {
	Model        string   `yaml:"model"`
	TFLOPS       *float64 `yaml:"tflops"`
	VRAMGB       *float64 `yaml:"vram_gb"`
	BandwidthGBs *float64 `yaml:"bandwidth_gbs"`
	NVLink       *bool    `yaml:"nvlink"`
	Aliases      []string `yaml:"aliases"`
}

// ModelSpec adds a model the scenarios can name (or overrides a preset).
type ModelSpec struct {
	Name       string `yaml:"name"`
	ModelShape `yaml:",inline"`
	Context    *Count `yaml:"context"`
	Source     string `yaml:"source"`
}

// ModelShape is a model's size and shape: what a models: entry gives and a
// scenario may override.
type ModelShape struct {
	Params       *Count `yaml:"params"`
	ActiveParams *Count `yaml:"active_params"`
	Layers       *int   `yaml:"layers"`
	Hidden       *int   `yaml:"hidden"`
	Heads        *int   `yaml:"heads"`
	KVHeads      *int   `yaml:"kv_heads"`
	HeadDim      *int   `yaml:"head_dim"`
	Intermediate *int   `yaml:"intermediate"`
	Experts      *int   `yaml:"experts"`
}

// Price is one row of the price catalog, the same shape as finops.yaml's
// prices: one provider's price for one GPU model, per GPU.
type Price struct {
	Provider string   `yaml:"provider" json:"provider"`
	GPUModel string   `yaml:"gpu_model" json:"gpu_model"`
	Hourly   *float64 `yaml:"hourly" json:"hourly,omitempty"`   // per GPU-hour
	Monthly  *float64 `yaml:"monthly" json:"monthly,omitempty"` // per GPU-month
	Spot     *float64 `yaml:"spot" json:"spot,omitempty"`       // per GPU-hour
	Currency string   `yaml:"currency" json:"currency,omitempty"`
	AsOf     string   `yaml:"as_of" json:"as_of,omitempty"`
}

// Scenario is one piece of planned work. Only name and kind are always
// required; what else is needed depends on the kind (see docs/PLANNER.md).
type Scenario struct {
	Name  string `yaml:"name"`
	Kind  string `yaml:"kind"`  // inference, lora, qlora, full-finetune, pretrain, data
	Model string `yaml:"model"` // a preset or a name under models:

	// The model's size and shape, overriding the preset's.
	ModelShape `yaml:",inline"`

	// Memory.
	Dtype           string   `yaml:"dtype"`    // weights: fp32, bf16, fp16, fp8, int8, int4
	KVDtype         string   `yaml:"kv_dtype"` // KV cache, default bf16 (fp32 for fp32 weights)
	SeqLen          *Count   `yaml:"seq_len"`  // tokens per sequence (training) or context (inference)
	Batch           *int     `yaml:"batch"`    // micro-batch per GPU (training) or concurrent sequences per replica (inference)
	Checkpointing   *bool    `yaml:"checkpointing"`
	LoRARank        *int     `yaml:"lora_rank"`
	LoRATargets     string   `yaml:"lora_targets"` // all (every linear layer) or attention (q, k, v, o)
	TrainableParams *Count   `yaml:"trainable_params"`
	ActivationsGB   *float64 `yaml:"activations_gb"`
	MemoryGB        *float64 `yaml:"memory_gb"`   // the whole estimate, when measured
	Parallelism     string   `yaml:"parallelism"` // auto, replicate, shard

	// Work: how much, for training and data processing.
	Tokens         *Count   `yaml:"tokens"`
	Epochs         *float64 `yaml:"epochs"`
	DatasetTokens  *Count   `yaml:"dataset_tokens"`
	DatasetSamples *Count   `yaml:"dataset_samples"`
	Runs           *int     `yaml:"runs"`
	Hours          *float64 `yaml:"hours"`     // wall-clock per run on gpus (or the fewest that fit)
	GPUHours       *float64 `yaml:"gpu_hours"` // card-hours per run
	MFU            *float64 `yaml:"mfu"`

	// Work, for inference.
	RequestsPerDay *Count   `yaml:"requests_per_day"`
	InputTokens    *Count   `yaml:"input_tokens"`  // prompt tokens per request
	OutputTokens   *Count   `yaml:"output_tokens"` // generated tokens per request
	Throughput     *float64 `yaml:"throughput"`    // generated tokens/s per GPU, when measured
	ServingHours   *float64 `yaml:"serving_hours_per_day"`

	// Schedule.
	DeadlineDays  *float64 `yaml:"deadline_days"`
	SpanDays      *float64 `yaml:"span_days"`
	Interruptible bool     `yaml:"interruptible"`

	// Pins: leave empty to let the planner choose.
	GPUModel string `yaml:"gpu_model"`
	GPUs     *int   `yaml:"gpus"`
	MaxGPUs  *int   `yaml:"max_gpus"`
	Provider string `yaml:"provider"`
	Pricing  string `yaml:"pricing"` // hourly, monthly, spot

	// Money.
	ConcurrencyBuffer *float64 `yaml:"concurrency_buffer"`
	Risk              *float64 `yaml:"risk"`
	RiskHigh          *float64 `yaml:"risk_high"`

	Notes string `yaml:"notes"`
}

// Parse decodes a scenario file strictly: an unknown key is an error, because
// a misspelt "deadline_day" would otherwise silently plan without a deadline.
// Errors name the file, line, scenario and field.
func Parse(name string, b []byte) (*File, error) {
	f := &File{name: name}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("plan: %s; check the YAML syntax (indentation, colons, quotes)", atLine(name, cleanYAMLError(err.Error())))
	}
	f.loc = newLocator(&root)
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	err := dec.Decode(f)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	var te *yaml.TypeError
	switch {
	case errors.As(err, &te):
		fe := &FileError{File: name}
		for _, msg := range te.Errors {
			fe.Problems = append(fe.Problems, f.typeProblem(msg))
		}
		return nil, fe
	case err != nil:
		return nil, fmt.Errorf("plan: %s", atLine(name, cleanYAMLError(err.Error())))
	}
	if len(f.Scenarios) == 0 {
		return nil, fmt.Errorf("plan: %s: no scenarios; add a scenarios: list (see scenarios.example.yaml)", name)
	}
	return f, nil
}

var (
	unknownFieldRE = regexp.MustCompile(`^line (\d+): field (\S+) not found in type (\S+)$`)
	typeMismatchRE = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$")
	lineRE         = regexp.MustCompile(`^line (\d+): (.*)$`)
)

// typeProblem turns one of yaml's type errors into a Problem that says where
// (scenario and field) and what to do.
func (f *File) typeProblem(msg string) Problem {
	if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		p := f.loc.problemAt(line)
		p.Field = m[2]
		p.Msg = "unknown field"
		if s := suggest(m[2], fieldsOf(m[3])); s != "" {
			p.Msg += fmt.Sprintf("; did you mean %s?", s)
		} else {
			p.Msg += "; check the spelling against scenarios.example.yaml"
		}
		return p
	}
	if m := typeMismatchRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		p := f.loc.problemAt(line)
		p.Msg = fmt.Sprintf("%q is not %s", m[3], goTypeWord(m[4]))
		return p
	}
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		p := f.loc.problemAt(line)
		p.Msg = m[2]
		return p
	}
	return Problem{Msg: msg}
}

// goTypeWord names a Go type the way a YAML author thinks of it.
func goTypeWord(t string) string {
	switch {
	case strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "text"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "plan."):
		return "a mapping of keys"
	}
	return "a " + t
}

// fieldsOf lists the YAML keys of one of this package's file types, for the
// "did you mean" suggestion.
func fieldsOf(typeName string) []string {
	var t reflect.Type
	switch strings.TrimPrefix(typeName, "plan.") {
	case "Scenario":
		t = reflect.TypeFor[Scenario]()
	case "File":
		t = reflect.TypeFor[File]()
	case "Defaults":
		t = reflect.TypeFor[Defaults]()
	case "GPUSpec":
		t = reflect.TypeFor[GPUSpec]()
	case "ModelSpec":
		t = reflect.TypeFor[ModelSpec]()
	case "Price":
		t = reflect.TypeFor[Price]()
	default:
		return nil
	}
	var out []string
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("yaml"); tag != "" && tag != "-" {
			out = append(out, strings.Split(tag, ",")[0])
		}
	}
	return out
}

// suggest returns the known name closest to a misspelt one, or "" (see
// spelling.Nearest).
func suggest(got string, known []string) string { return spelling.Nearest(got, known) }

// atLine writes "line 12: msg" from yaml as "file:12: msg".
func atLine(file, msg string) string {
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		return file + ":" + m[1] + ": " + m[2]
	}
	return file + ": " + msg
}

// cleanYAMLError drops yaml's "yaml: " prefix; we add our own.
func cleanYAMLError(s string) string {
	return strings.TrimPrefix(s, "yaml: ")
}
