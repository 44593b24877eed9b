package gpu

import (
	"regexp"
	"strconv"
	"strings"
)

// A slice is part of one physical GPU handed out as a device of its own:
// a vGPU profile or a MIG instance. It is recorded as its parent model with
// its fractions and is never counted as a whole card (docs/METRICS.md,
// "Slices and shared GPUs").
const (
	SliceVGPU = "vGPU"
	SliceMIG  = "MIG"
)

// Slice is a vGPU profile or MIG instance of a parent GPU.
type Slice struct {
	Parent  string // canonical parent model ("A100-40GB"); "" when the name gives none finops knows
	Kind    string // SliceVGPU or SliceMIG
	Profile string // as NVIDIA names it: "A100-10C", "1g.10gb"
	// MemoryGB is the profile's framebuffer in GB as its name gives it.
	MemoryGB float64
	// MemoryFraction is MemoryGB over the parent's memory (0: the parent's
	// memory is unknown). It is the share finops counts a slice as.
	MemoryFraction float64
	// ComputeFraction is the share of the parent's compute the slice owns:
	// a MIG instance's g/7 (g/4 on an A30); 0 for a time-sliced vGPU, whose
	// compute is not dedicated: it runs in turns with the card's other vGPUs
	// under the vGPU scheduler, and may get anything up to the whole card.
	ComputeFraction float64
}

// vGPU profile names, from NVIDIA's Virtual GPU Software User Guide
// ("Virtual GPU Types for Supported GPUs", docs.nvidia.com/vgpu): the board,
// a dash, the framebuffer in GB and the series letter — A (virtual
// applications), B (virtual PC), C (compute), Q (virtual workstation).
// MIG-backed vGPUs put the instance's compute slices between the board and
// the framebuffer ("A100-3-20C"). The driver shows the guest the profile as
// its GPU name, prefixed "GRID " or "NVIDIA " by driver generation. Board
// variants carry letters after the chip: A100D (80 GB), A100X / A100DX (HGX),
// H100XM (SXM5)…
var vgpuName = regexp.MustCompile(`^(?i:(?:NVIDIA|GRID)\s+)?([A-Z]{1,3}[0-9]{1,4}[A-Z]{0,3})-(?:([1-7])-)?([0-9]{1,3})([ABCQ])$`)

// MIG profiles, from NVIDIA's Multi-Instance GPU User Guide ("Supported MIG
// Profiles", docs.nvidia.com/datacenter/tesla/mig-user-guide): "<g>g.<m>gb"
// for a GPU instance of g compute slices and m GB of memory, optionally a
// compute instance "<c>c." in front and "+me" (media extensions) or "-me"
// behind. dcgm-exporter gives it in GPU_I_PROFILE, nvidia-smi -L after
// "MIG" ("MIG 1g.5gb Device 0"), and NVIDIA's device plugin as
// "nvidia.com/mig-1g.5gb".
var migProfile = regexp.MustCompile(`(?i)^(?:([1-7])c\.)?([1-7])g\.([0-9]{1,3})gb(?:[+-]me)?$`)

// migSlices is how many compute slices a card's MIG mode divides it into
// (the MIG user guide's profile tables): 7 on the A100, H100, H200 and
// their export variants, 4 on the A30. A model not listed has no MIG.
func migSlices(model string) int {
	switch model {
	case gpuA100_40, gpuA100_80, gpuA800, gpuH100, gpuH100P, gpuH800, gpuH20, gpuH200, gpuB200:
		return 7
	case gpuA30:
		return 4
	}
	return 0
}

// ParseSlice reads a GPU name as a slice: a vGPU profile ("GRID A100-10C",
// "A100-4C", "NVIDIA A100-40C", "GRID T4-4Q") or a MIG instance ("NVIDIA
// A100-SXM4-40GB MIG 1g.5gb", "A100-SXM4-80GB 1g.10gb", "MIG 3g.40gb"). ok
// is false for a whole card ("A100-SXM4-40GB") and for anything else. A nil
// Catalog knows the built-in names.
func (c *Catalog) ParseSlice(name string) (Slice, bool) {
	name = strings.TrimSpace(name)
	if s, ok := c.parseVGPU(name); ok {
		return s, true
	}
	return c.parseMIG(name)
}

// ParseSlice is Catalog.ParseSlice with the built-in names.
func ParseSlice(name string) (Slice, bool) {
	var builtin *Catalog
	return builtin.ParseSlice(name)
}

func (c *Catalog) parseVGPU(name string) (Slice, bool) {
	m := vgpuName.FindStringSubmatch(name)
	if m == nil {
		return Slice{}, false
	}
	gb, err := strconv.Atoi(m[3])
	if err != nil || gb < 1 {
		return Slice{}, false
	}
	board := strings.ToUpper(m[1])
	profile := board + "-"
	if m[2] != "" {
		profile += m[2] + "-"
	}
	s := Slice{Kind: SliceVGPU, Profile: profile + m[3] + strings.ToUpper(m[4]), MemoryGB: float64(gb)}
	s.Parent = c.vgpuParent(board)
	if s.Parent != "" {
		var ok bool
		if s.MemoryFraction, ok = memoryFraction(s.Parent, s.MemoryGB); !ok {
			return Slice{}, false
		}
	}
	if m[2] != "" && s.Parent != "" {
		// A MIG-backed vGPU owns its instance's compute slices.
		if n := migSlices(s.Parent); n > 0 {
			g, _ := strconv.Atoi(m[2])
			s.ComputeFraction = float64(g) / float64(n)
		}
	}
	return s, true
}

// vgpuParent is the canonical model of a vGPU profile's board ("A100",
// "A100D", "H100XM"): the board itself when the catalog knows it, else the
// chip without its variant letters, where a D on an A100 is the 80 GB card
// (NVIDIA's vGPU type tables: A100D-… on "A100 PCIe 80GB", A100DX-… on
// "A100 HGX 80GB"). "" when neither is a model finops knows.
func (c *Catalog) vgpuParent(board string) string {
	if m, ok := c.resolveGPU(board); ok {
		return m
	}
	i := len(board)
	for i > 0 && board[i-1] >= 'A' && board[i-1] <= 'Z' {
		i--
	}
	chip, variant := board[:i], board[i:]
	if chip == "A100" && strings.Contains(variant, "D") {
		return gpuA100_80
	}
	if m, ok := c.resolveGPU(chip); ok {
		return m
	}
	return ""
}

func (c *Catalog) parseMIG(name string) (Slice, bool) {
	fields := strings.Fields(name)
	if len(fields) == 0 {
		return Slice{}, false
	}
	last := fields[len(fields)-1]
	prof := strings.TrimPrefix(strings.ToLower(last), "nvidia.com/mig-")
	m := migProfile.FindStringSubmatch(prof)
	if m == nil {
		return Slice{}, false
	}
	parentText := fields[:len(fields)-1]
	if n := len(parentText); n > 0 && strings.EqualFold(parentText[n-1], "MIG") {
		parentText = parentText[:n-1]
	}
	g, _ := strconv.Atoi(m[2])
	gb, _ := strconv.Atoi(m[3])
	if gb < 1 {
		return Slice{}, false
	}
	s := Slice{Kind: SliceMIG, Profile: strings.ToLower(prof), MemoryGB: float64(gb)}
	if len(parentText) > 0 {
		parent, ok := c.resolveGPU(strings.Join(parentText, " "))
		if !ok {
			// Text before the profile that names no GPU: not a slice name.
			return Slice{}, false
		}
		s.Parent = parent
		n := migSlices(parent)
		if n == 0 || g > n {
			return Slice{}, false
		}
		s.ComputeFraction = float64(g) / float64(n)
		if s.MemoryFraction, ok = memoryFraction(parent, s.MemoryGB); !ok {
			return Slice{}, false
		}
	}
	return s, true
}

// memoryFraction is a profile's gb over its parent's memory (0 when the
// catalog does not know that memory); ok is false for a profile larger than
// its parent, which is no slice of it. vGPU and MIG names share the rule.
func memoryFraction(parent string, gb float64) (frac float64, ok bool) {
	spec, known := Lookup(parent)
	if !known || spec.MemoryGB <= 0 {
		return 0, true
	}
	if gb > spec.MemoryGB {
		return 0, false
	}
	return gb / spec.MemoryGB, true
}

// Share is the fraction of a card s counts as in GPU counts: its memory
// fraction (a vGPU's framebuffer, a MIG instance's memory slices, both
// eighths or smaller of the card, so a card's slices never add up to more
// than it). 0: unknown, the parent's memory is not in the catalog.
func (s Slice) Share() float64 { return s.MemoryFraction }

// Name is the model name finops records a slice under where a record has
// no room for its slice (a bill's GPU model): "A100-80GB MIG 1g.10gb" for a
// MIG instance, the profile ("A100-10C") for a vGPU. It reads back as the
// same slice (ParseSlice), and is never the parent's name, so per-model
// prices, the review and the planner keep a slice apart from a whole card.
func (s Slice) Name() string {
	if s.Kind == SliceMIG {
		if s.Parent == "" {
			return "MIG " + s.Profile
		}
		return s.Parent + " MIG " + s.Profile
	}
	return s.Profile
}

// sliceSpec is what the planner and the review know of a slice of parent:
// the profile's memory; a MIG instance's share of the compute and bandwidth
// (its compute slices own their memory slices' bandwidth: the MIG user
// guide's isolation of the memory system); a time-sliced vGPU's compute is
// not its own, so unknown (0), and no slice has the card's NVLink (MIG: no
// peer-to-peer between instances).
func sliceSpec(s Slice, parent Spec) Spec {
	out := Spec{Model: s.Name(), MemoryGB: s.MemoryGB, RatedWatts: parent.RatedWatts,
		Source: parent.Model + " " + s.Kind + " " + s.Profile + ": memory from the profile's name"}
	if s.Kind == SliceMIG && s.ComputeFraction > 0 {
		out.TFLOPS = parent.TFLOPS * s.ComputeFraction
		out.BandwidthGBs = parent.BandwidthGBs * s.MemoryFraction
		out.Source += ", compute and bandwidth the instance's share of the card's"
	}
	return out
}
