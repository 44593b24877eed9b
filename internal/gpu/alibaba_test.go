package gpu

import "testing"

func TestAlibabaInstanceTypes(t *testing.T) {
	c := NewCatalog()
	for in, want := range map[string]complement{
		"ecs.gn7i-c8g1.2xlarge":   {"A10", 1},
		"ecs.gn7i-c16g1.4xlarge":  {"A10", 1},
		"ecs.gn7i-c32g1.16xlarge": {"A10", 2},
		"ecs.gn7i-c32g1.32xlarge": {"A10", 4},
		"ECS.GN7E-C16G1.4XLARGE":  {"A100-80GB", 1},
		"ecs.gn7e-c16g1.32xlarge": {"A100-80GB", 8},
		"ecs.gn7-c12g1.3xlarge":   {"A100-40GB", 1},
		"ecs.gn6i-c4g1.xlarge":    {"T4", 1},
		"ecs.gn6i-c24g1.24xlarge": {"T4", 4},
		"ecs.gn6v-c8g1.16xlarge":  {"V100", 8},
		"ecs.gn6v-c10g1.20xlarge": {"V100", 8},
		"ecs.gn6e-c12g1.24xlarge": {"V100", 8},
		"ecs.gn5i-c2g1.large":     {"P4", 1},
		"ecs.gn7s-c32g1.16xlarge": {"A30", 2},
		"ecs.ebmgn7e.32xlarge":    {"A100-80GB", 8},
	} {
		m, n, ok := c.Instance(in)
		if !ok || m != want.model || n != want.count {
			t.Errorf("Instance(%q) = %q, %d, %v; want %v", in, m, n, ok, want)
		}
	}
	for _, not := range []string{"ecs.g7.2xlarge", "ecs.gn7i-c8g1", "ecs.gn7i-c0g1.2xlarge", "ecs.gn7i-c3g1.2xlarge",
		"ecs.gn9z-c16g1.4xlarge", "ecs.gn7i-c8g2.2xlarge", "ecs.gn7i.2xlarge", "ecs.gn7i-c8g1.999999xlarge"} {
		if m, n, ok := c.Instance(not); ok {
			t.Errorf("Instance(%q) = %q, %d; want unknown", not, m, n)
		}
	}
	for in, want := range map[string]bool{"ecs.gn9z-c16g1.4xlarge": true, "ecs.ebmgn8v.48xlarge": true,
		"ecs.sgn7i-vws-m2.xlarge": true, "ecs.g7.2xlarge": false, "ecs.gnx.large": false} {
		if got := LooksLike(in); got != want {
			t.Errorf("LooksLike(%q) = %v, want %v", in, got, want)
		}
	}
	// The config's instance_types win over the derived ones.
	c.Add("ecs.gn7i-c8g1.2xlarge", "A10-24GB", 1)
	if m, _, _ := c.Instance("ecs.gn7i-c8g1.2xlarge"); m != "A10-24GB" {
		t.Errorf("added type not preferred: %q", m)
	}
}
