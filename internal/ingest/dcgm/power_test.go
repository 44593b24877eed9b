package dcgm

import (
	"strings"
	"testing"
)

// TestPowerAboveBoundRefused: a dcgm-exporter reading above 1.5× its GPU's
// rated power (an A100: 400 W, so 600 W) or above 3 kW (a GPU finops does
// not know) is refused as a bad row naming the metric and the GPU; the
// scrape's other readings, the bound itself included, are read.
func TestPowerAboveBoundRefused(t *testing.T) {
	in := `# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-aaaa",modelName="NVIDIA A100-SXM4-80GB",Hostname="n"} 5000 1793001600000
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-bbbb",modelName="NVIDIA A100-SXM4-80GB",Hostname="n"} 600 1793001600000
DCGM_FI_DEV_POWER_USAGE{gpu="2",UUID="GPU-cccc",modelName="NVIDIA Quantum Card",Hostname="n"} 1e12 1793001600000
DCGM_FI_DEV_POWER_USAGE{gpu="3",UUID="GPU-dddd",modelName="NVIDIA Quantum Card",Hostname="n"} 2999 1793001600000
DCGM_FI_DEV_POWER_USAGE{gpu="4",UUID="GPU-eeee",modelName="NVIDIA A100-SXM4-80GB",Hostname="n"} 600.0000000000001 1793001600000
`
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "p.prom"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]float64{}
	for _, s := range sink.samples {
		kept[s.UUID] = *s.PowerWatt
	}
	if len(kept) != 2 || kept["GPU-bbbb"] != 600 || kept["GPU-dddd"] != 2999 {
		t.Errorf("kept %v; want GPU-bbbb at 600 W and GPU-dddd at 2999 W", kept)
	}
	if len(sum.Rejected) != 3 {
		t.Fatalf("refused %v; want the 5000 W, 1e12 W and 600.0000000000001 W readings", sum.Rejected)
	}
	for _, r := range sum.Rejected {
		msg := r.Error()
		if !strings.Contains(msg, "p.prom") || !strings.Contains(msg, PowerUsage) || !strings.Contains(msg, "not a plausible reading") {
			t.Errorf("refusal %q does not name the file, %s and why", msg, PowerUsage)
		}
	}
}
