package telemetry

import (
	"testing"
	"time"
)

// TestNameTime: the one time stamp of a scrape file's name, in UTC.
func TestNameTime(t *testing.T) {
	eight := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		want time.Time // zero: none found
	}{
		{"gpu-a-2026-11-02T08:00:00Z.prom", eight},
		{"gpu-a-2026-11-02T08-00-00Z.prom", eight}, // the colons a file name may not hold, as dashes
		{"gpu-a-20261102T080000Z.prom", eight},     // date -u +%Y%m%dT%H%M%SZ
		// 16:00 in China is 08:00 UTC, with or without the offset's colon.
		{"gpu-a-2026-11-02T16:00:00+08:00.prom", eight},
		{"gpu-a-2026-11-02T16-00-00+0800.prom", eight},
		{"gpu-a-2026-11-02T08:00:00.5Z.prom", eight.Add(500 * time.Millisecond)},
		// The same instant twice agrees; two different ones say nothing.
		{"2026-11-02T08:00:00Z-20261102T080000Z.prom", eight},
		{"2026-11-02T08:00:00Z-20261102T090000Z.prom", time.Time{}},
		{"gpu-a.prom", time.Time{}},
		{"gpu-a-2026-11-02.prom", time.Time{}}, // a day is no time of scrape
	} {
		got, ok := nameTime(tc.name)
		if ok != !tc.want.IsZero() || !got.Equal(tc.want) || (ok && got.Location() != time.UTC) {
			t.Errorf("%s: %s, %v; want %s", tc.name, got, ok, tc.want)
		}
	}
}

// TestIsScrape: exposition text by its first bytes, CSV not.
func TestIsScrape(t *testing.T) {
	for head, want := range map[string]bool{
		"# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n": true,
		"\ufeff# TYPE x gauge\n":                                true,
		"\n\n# UNIT x seconds\n":                                true,
		`DCGM_FI_DEV_GPU_UTIL{gpu="0"} 95` + "\n":               true,
		`nvidia_smi_utilization_gpu_ratio{uuid="x"} 0.5` + "\n": true,
		"timestamp, index, name, utilization.gpu [%]\n":         false,
		"#HELP no space\n":                                      false,
		"":                                                      false,
	} {
		if got := IsScrape([]byte(head)); got != want {
			t.Errorf("%q: %v, want %v", head, got, want)
		}
	}
}
