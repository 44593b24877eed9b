package dcgm

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestUnsafeLabelRefusedGenerated: the text rule of docs/INGEST.md holds
// for a scrape's labels: every rune of issue 32's ranges but LF (which
// ends an exposition line), at a random place in a host name, is refused
// with the code point named — by finops, or already by the exposition
// parser — never accepted.
func TestUnsafeLabelRefusedGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	var runes []rune
	for _, rg := range [][2]rune{{0x00, 0x1f}, {0x7f, 0x9f}, {0x2028, 0x2029}, {0x202a, 0x202e}, {0x2066, 0x2069},
		{0x200e, 0x200f}, {0x061c, 0x061c}, {0x200b, 0x200d}, {0x2060, 0x2060}, {0xfeff, 0xfeff}} {
		for r := rg[0]; r <= rg[1]; r++ {
			runes = append(runes, r)
		}
	}
	for _, r := range runes {
		if r == '\n' {
			continue
		}
		host := []rune("node-" + fmt.Sprint(rng.Intn(1000)))
		at := rng.Intn(len(host) + 1)
		host = append(host[:at], append([]rune{r}, host[at:]...)...)
		in := fmt.Sprintf("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"%s\"} 50 1793001600000\n", string(host))
		sink := &recSink{}
		_, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "l.prom"}, sink)
		if err == nil {
			t.Errorf("%U in the Hostname label %q: accepted as %+v", r, string(host), sink.samples[0])
			continue
		}
		if want := fmt.Sprintf("U+%04X", r); !strings.Contains(err.Error(), want) && !strings.Contains(err.Error(), "not a Prometheus") {
			t.Errorf("%U in the Hostname label: %v; want %s named", r, err, want)
		}
	}
}
