package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/testnum"
)

// TestHourlyUtil: the heatmap's row of oneDay's GPU, one mean per window
// hour, by hand from oneDay's minutes: 0 until 08:00, 80 until 12:00; 12:00
// is 20 minutes at 5 and 40 at 90, (20·5 + 40·90) / 60 = 61.67; 90 until
// 18:00; 18:00 holds only the minute the 17:59 sample covers (90); 19:00
// has no sample (NaN, unmonitored); 3 from 20:00.
func TestHourlyUtil(t *testing.T) {
	r, err := Analyze(oneDay())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.HourlyUtil) != 1 {
		t.Fatalf("hourly rows = %+v, want GPU-1's", r.HourlyUtil)
	}
	g := r.HourlyUtil[0]
	if g.GPU != "GPU-1" || g.ResourceID != "gpu-1" || !g.Start.Equal(day0) {
		t.Errorf("row = %s on %s from %s, want GPU-1 on gpu-1 from %s", g.GPU, g.ResourceID, g.Start, day0)
	}
	want := []float64{0, 0, 0, 0, 0, 0, 0, 0, 80, 80, 80, 80, (20*5 + 40*90) / 60.0, 90, 90, 90, 90, 90, 90,
		math.NaN(), 3, 3, 3, 3}
	if len(g.Util) != len(want) {
		t.Fatalf("%d hours, want %d", len(g.Util), len(want))
	}
	for h, w := range want {
		if math.IsNaN(w) {
			if !math.IsNaN(g.Util[h]) {
				t.Errorf("hour %d = %v, want NaN (unmonitored)", h, g.Util[h])
			}
			continue
		}
		testnum.NearRel(t, g.Hour(h).Format(time.TimeOnly), g.Util[h], w, 1e-6)
	}
	if got := g.Hour(23); !got.Equal(day0.Add(23 * time.Hour)) {
		t.Errorf("Hour(23) = %s, want 23:00", got)
	}
}
