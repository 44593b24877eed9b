package publish

import "testing"

func TestPeriodEnd(t *testing.T) {
	for label, want := range map[string]string{
		"2026-W47":              "2026-11-23",
		"2026-W01":              "2026-01-05",
		"2020-W53":              "2021-01-04",
		"2026-10-31_2026-11-30": "2026-12-01",
	} {
		got, ok := PeriodEnd(label)
		if !ok || got.Format("2006-01-02") != want {
			t.Errorf("PeriodEnd(%q) = %v, %v; want %s", label, got, ok, want)
		}
	}
	for _, bad := range []string{"2026-W54", "2025-W53", "2026-W00", "x", "../2026-W47", "2026-02-30_2026-02-31"} {
		if _, ok := PeriodEnd(bad); ok {
			t.Errorf("PeriodEnd(%q) parsed", bad)
		}
	}
}
