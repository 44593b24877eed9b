package plan

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/testnum"
)

// TestA10G: the planner knows AWS's A10G (g5 instances), by the name bills
// and price catalogs record and by the one nvidia-smi prints (issue #27: a
// scenario naming it was refused, and a catalog pricing it warned).
//
// testJob is 2 × 1B params × 900M tokens = 1.8e18 FLOPs at MFU 0.5. On the
// A10G's 70 dense BF16 TFLOPS: 1.8e18 / (70e12 × 0.5 × 3,600 s) = 14.2857
// card-hours; hourly at ¥10: 14.2857 × (1 + 0.25) × ¥10 × risk 1.3 = ¥232.14.
func TestA10G(t *testing.T) {
	for _, name := range []string{"A10G", "NVIDIA A10G", "a10g"} {
		t.Run(name, func(t *testing.T) {
			r := planYAML(t, `
currency: CNY
prices:
  - {provider: AWS, gpu_model: A10G, hourly: 10}
scenarios:
  - {name: job, gpu_model: "`+name+`", `+testJob[1:]+`}
`)
			if w := strings.Join(r.Warnings, "\n"); strings.Contains(w, "A10G") {
				t.Errorf("warnings name the A10G: %s", w)
			}
			s := scenario(t, r, "job")
			g := gpuFit(t, s, "A10G")
			if g.VRAMGB != 24 || g.TFLOPS != 70 || !g.Fits {
				t.Errorf("A10G fit = %+v, want 24 GB, 70 TFLOPS, fits 10 GB", g)
			}
			testnum.Near(t, "card-hours", g.CardHours, 1.8e18/(70e12*0.5*3600), 1e-9)
			if s.Plan == nil || s.Plan.GPUModel != "A10G" || s.Plan.Provider != "AWS" {
				t.Fatalf("plan = %+v, want the A10G at AWS", s.Plan)
			}
			testnum.Near(t, "cost", s.Plan.CostLow, 232.142857, 0.01)
		})
	}
}
