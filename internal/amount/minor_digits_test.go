package amount

import "testing"

// The minor units are ISO 4217's table, read by hand.
func TestMinorDigits(t *testing.T) {
	for code, want := range map[string]int{"USD": 2, "CNY": 2, "EUR": 2, "jpy": 0, " JPY ": 0, "KRW": 0, "KWD": 3, "BHD": 3, "": 2, "XYZ": 2} {
		if got := MinorDigits(code); got != want {
			t.Errorf("MinorDigits(%q) = %d, want %d", code, got, want)
		}
	}
}
