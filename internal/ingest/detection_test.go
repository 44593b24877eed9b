package ingest

import "testing"

// TestDetectionOf: a detection made while opening a file is reused for the
// header it was made for and for no other; what it says is DetectFormat's
// answer (a FOCUS header by its BilledCost and ChargePeriodStart, a rental
// header by the built-in AutoDL mapping's Chinese columns).
func TestDetectionOf(t *testing.T) {
	focus := []string{"BilledCost", "ChargePeriodStart", "ChargePeriodEnd"}
	other := []string{"timestamp", "uuid", "utilization.gpu [%]"}
	opened := detect(focus, Options{})
	if opened.format != FormatFOCUS || opened.err != nil {
		t.Fatalf("detect(FOCUS header) = %+v", opened)
	}
	for _, c := range []struct {
		name   string
		d      *detection
		hdr    []string
		reused bool
		format string
	}{
		{"same header", opened, []string{"BilledCost", "ChargePeriodStart", "ChargePeriodEnd"}, true, FormatFOCUS},
		{"another header", opened, other, false, FormatNvidiaSMI},
		{"a longer header", opened, append(focus[:3:3], "x"), false, FormatFOCUS},
		{"none made", nil, focus, false, FormatFOCUS},
	} {
		got := c.d.of(c.hdr, Options{})
		if (got == opened) != c.reused || got.format != c.format {
			t.Errorf("%s: reused %v, format %q; want reused %v, format %q", c.name, got == opened, got.format, c.reused, c.format)
		}
	}
	if m := mappingFor(focus, Options{Format: FormatFOCUS}); m != nil {
		t.Errorf("mappingFor with --format focus = %+v, want no detection", m)
	}
	if m := mappingFor(focus, Options{}).rental(); m != nil {
		t.Errorf("a FOCUS header's rental mapping = %+v, want none", m)
	}
}
