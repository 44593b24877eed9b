package gpu

import (
	"strconv"
	"strings"
	"unicode"
)

// Catalog recognises GPU machines: cloud instance types with a fixed GPU
// complement, and the GPU names rental platforms and nvidia-smi print.
// Build one with NewCatalog and extend it from the config; a Catalog is
// not safe for concurrent Add and lookup.
type Catalog struct {
	instances map[string]complement // lower-case instance type → GPUs
	aliases   map[string]string     // normalised GPU name → canonical model
}

type complement struct {
	model string
	count int
}

// MaxPerMachine bounds counts read from free text: "2x4090" must not
// become 4090 GPUs of model "2".
const MaxPerMachine = 64

// NewCatalog returns the instance types and GPU names finops knows out of
// the box. Each call returns a fresh catalog, so callers may Add to it.
func NewCatalog() *Catalog {
	c := &Catalog{instances: map[string]complement{}, aliases: map[string]string{}}
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
	// The smaller NVadsA10 v5 sizes are vGPU slices of one A10 (Azure's
	// "NVadsA10 v5-series" page: 1/6, 1/3 and 1/2 GPU with 4, 8 and 12 GiB):
	// billed per slice under the slice's model, never as a whole A10.
	add("A10-4Q", 1, "Standard_NV6ads_A10_v5")
	add("A10-8Q", 1, "Standard_NV12ads_A10_v5")
	add("A10-12Q", 1, "Standard_NV18ads_A10_v5")
	add(gpuA10, 1, "Standard_NV36ads_A10_v5")
	add(gpuA10, 2, "Standard_NV72ads_A10_v5")
	return c
}

// Add records that an instance type carries count GPUs of model. Config
// extensions use it for instance types finops does not ship; a later Add of
// the same type replaces the earlier one.
func (c *Catalog) Add(instanceType, model string, count int) {
	if c.instances == nil {
		c.instances = map[string]complement{}
	}
	c.instances[strings.ToLower(strings.TrimSpace(instanceType))] = complement{model: model, count: count}
}

// AddAlias makes GPUName recognise name (as a rental platform or driver
// prints it, without a count) as model.
func (c *Catalog) AddAlias(name, model string) {
	if c.aliases == nil {
		c.aliases = map[string]string{}
	}
	c.aliases[normaliseName(name)] = model
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
	if !ok {
		s, ok = alibabaInstance(k)
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
