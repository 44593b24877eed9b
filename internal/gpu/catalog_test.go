package gpu

import "testing"

func TestGPUName(t *testing.T) {
	c := NewCatalog()
	cases := []struct {
		in    string
		model string
		count int
	}{
		{"RTX 4090 * 2", "RTX 4090", 2},
		{"4090*2", "RTX 4090", 2},
		{"2x4090", "RTX 4090", 2},
		{"2 x A100-SXM4-80GB", "A100-80GB", 2},
		{"A100-SXM4-80GB", "A100-80GB", 1},
		{"A100-PCIE-40GB", "A100-40GB", 1},
		{"NVIDIA H100 80GB HBM3", "H100", 1},
		{"NVIDIA A100-SXM4-80GB", "A100-80GB", 1},
		{"Tesla T4", "T4", 1},
		{"NVIDIA L40S", "L40S", 1},
		{"NVIDIA A10G", "A10G", 1},
		{"NVIDIA A10", "A10", 1},
		{"L20", "L20", 1},
		{"H20", "H20", 1},
		{"NVIDIA H200", "H200", 1},
		{"H800 * 8", "H800", 8},
		{"RTX 3090", "RTX 3090", 1},
		{"A800 80GB", "A800-80GB", 1},
		{"8xH100", "H100", 8},
		{"H100×8", "H100", 8},
		{"RTX 4090 * 1卡", "RTX 4090", 1},
		{"NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada", 1},
		{"Ascend 910B", "Ascend 910B", 1},
		{"Tesla V100-SXM2-32GB", "V100", 1},
		{"Tesla M60", "M60", 1},
		{"NVIDIA L4", "L4", 1},
		// Rental-platform names (RunPod gpuTypeId, AutoDL): whole tokens, so
		// 4090D is not a 4090 and L40 is not an L40S.
		{"RTX 4090D * 2", "RTX 4090D", 2},
		{"NVIDIA L40", "L40", 1},
		{"NVIDIA A100 80GB PCIe", "A100-80GB", 1},
		{"NVIDIA RTX A6000", "RTX A6000", 1},
		{"NVIDIA GeForce RTX 5090", "RTX 5090", 1},
		{"NVIDIA A40", "A40", 1},
		{"NVIDIA B200", "B200", 1},
		{"AMD Instinct MI300X OAM", "MI300X", 1},
	}
	for _, tc := range cases {
		m, n, ok := c.GPUName(tc.in)
		if !ok || m != tc.model || n != tc.count {
			t.Errorf("GPUName(%q) = %q, %d, %v; want %q, %d", tc.in, m, n, ok, tc.model, tc.count)
		}
	}
	for _, unknown := range []string{"", "NVIDIA GeForce RTX 2080 SUPER", "NVIDIA GeForce RTX 4080 SUPER",
		"Quadro RTX 6000", "MX150", "NVIDIA RTX A4000", "CPU", "无卡模式", "NVIDIA A2", "2x", "x2"} {
		if m, n, ok := c.GPUName(unknown); ok {
			t.Errorf("GPUName(%q) = %q, %d; want unknown", unknown, m, n)
		}
	}
	c.AddAlias("GeForce RTX 2080 SUPER", "RTX 2080S")
	if m, n, ok := c.GPUName("GeForce RTX 2080 Super * 2"); !ok || m != "RTX 2080S" || n != 2 {
		t.Errorf("alias: %q %d %v", m, n, ok)
	}
}

func TestInstance(t *testing.T) {
	c := NewCatalog()
	cases := []struct {
		in    string
		model string
		count int
	}{
		{"g3.4xlarge", "M60", 1}, {"g3.16xlarge", "M60", 4}, {"g4dn.metal", "T4", 8}, {"g4dn.12xlarge", "T4", 4},
		{"g5.xlarge", "A10G", 1}, {"G5.12XLARGE", "A10G", 4}, {"g5.48xlarge", "A10G", 8},
		{"g6.xlarge", "L4", 1}, {"g6e.xlarge", "L40S", 1}, {"g6e.24xlarge", "L40S", 4},
		{"p3.2xlarge", "V100", 1}, {"p3dn.24xlarge", "V100", 8},
		{"p4d.24xlarge", "A100-40GB", 8}, {"p4de.24xlarge", "A100-80GB", 8},
		{"p5.48xlarge", "H100", 8}, {"p5e.48xlarge", "H200", 8}, {"p5en.48xlarge", "H200", 8},
		{"a2-highgpu-1g", "A100-40GB", 1}, {"a2-megagpu-16g", "A100-40GB", 16}, {"a2-ultragpu-1g", "A100-80GB", 1},
		{"a3-highgpu-8g", "H100", 8}, {"a3-megagpu-8g", "H100", 8},
		{"g2-standard-4", "L4", 1}, {"g2-standard-24", "L4", 2}, {"g2-standard-96", "L4", 8},
		{"Standard_NC24ads_A100_v4", "A100-80GB", 1}, {"standard_nc96ads_a100_v4", "A100-80GB", 4},
		{"Standard_ND96asr_v4", "A100-40GB", 8}, {"Standard_ND96amsr_A100_v4", "A100-80GB", 8},
		{"Standard_NC40ads_H100_v5", "H100", 1}, {"NC80adis_H100_v5", "H100", 2}, {"Standard_ND96isr_H100_v5", "H100", 8},
		{"Standard_NC4as_T4_v3", "T4", 1}, {"Standard_NC64as_T4_v3", "T4", 4}, {"Standard_NV36ads_A10_v5", "A10", 1},
	}
	for _, tc := range cases {
		m, n, ok := c.Instance(tc.in)
		if !ok || m != tc.model || n != tc.count {
			t.Errorf("Instance(%q) = %q, %d, %v; want %q, %d", tc.in, m, n, ok, tc.model, tc.count)
		}
	}
	if _, _, ok := c.Instance("m5.large"); ok {
		t.Error("m5.large is not a GPU instance")
	}
	c.Add("gpu_8x_h100_sxm5", "H100", 8)
	if m, n, ok := c.Instance("GPU_8X_H100_SXM5"); !ok || m != "H100" || n != 8 {
		t.Errorf("added type: %q %d %v", m, n, ok)
	}
	if NewCatalog() == c {
		t.Error("NewCatalog shares state")
	}
	if _, _, ok := NewCatalog().Instance("gpu_8x_h100_sxm5"); ok {
		t.Error("Add leaked into a fresh NewCatalog")
	}

	for text, want := range map[string]string{
		"$1.624 per On Demand Linux g5.4xlarge Instance Hour": "g5.4xlarge",
		"USE1-BoxUsage:p4d.24xlarge":                          "p4d.24xlarge",
		"Spot g6e.12xlarge.":                                  "g6e.12xlarge",
		"$0.0116 per On Demand Linux t2.micro Instance Hour":  "",
	} {
		got, _, _, _ := c.FindInstance(text)
		if got != want {
			t.Errorf("FindInstance(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestLooksLike(t *testing.T) {
	for _, s := range []string{"NVIDIA GeForce RTX 2080 SUPER", "gpu_1x_a100", "p2.xlarge", "g4ad.xlarge",
		"a2-highgpu-1g", "Standard_NC6s_v3", "Nvidia Tesla K80 GPU running in Americas", "RTX 5090 * 2", "trn1.32xlarge"} {
		if !LooksLike(s) {
			t.Errorf("LooksLike(%q) = false", s)
		}
	}
	for _, s := range []string{"", "F9GPUA3E29X6GJVE", "m5.large", "t2.micro", "Standard_D2s_v3",
		"Amazon Simple Queue Service", "无卡模式", "$0.005 per In-use public IPv4 address per hour"} {
		if LooksLike(s) {
			t.Errorf("LooksLike(%q) = true", s)
		}
	}
}
