package gpu

import "testing"

// FuzzGPUName checks the free-text GPU reader never panics and never
// returns a count outside 1–64.
func FuzzGPUName(f *testing.F) {
	for _, s := range []string{"RTX 4090 * 2", "2 x A100-SXM4-80GB", "H100×8", "8xH100", "MX150", "4090*2", "无卡模式"} {
		f.Add(s)
	}
	c := NewCatalog()
	f.Fuzz(func(t *testing.T, s string) {
		if m, n, ok := c.GPUName(s); ok && (m == "" || n < 1 || n > MaxPerMachine) {
			t.Fatalf("GPUName(%q) = %q, %d", s, m, n)
		}
		LooksLike(s)
		c.FindInstance(s)
	})
}
