// Package testnum holds the numeric comparisons tests share, so that "equal
// to a millionth" means the same in every package's tests. Tests only.
package testnum

import (
	"math"
	"testing"
)

// Near fails t when got is farther than tol from want: for figures whose
// error is absolute (cents, a fixed rounding step).
func Near(t testing.TB, name string, got, want, tol float64) {
	t.Helper()
	if !Within(got, want, tol) {
		t.Errorf("%s = %.9g, want %.9g (±%g)", name, got, want, tol)
	}
}

// NearRel fails t when got differs from want by more than rel of want's
// size (of 1 when want is smaller): for sums of floats whose error grows
// with their size.
func NearRel(t testing.TB, name string, got, want, rel float64) {
	t.Helper()
	if !(math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))) { // NaN is near nothing, as in Within
		t.Errorf("%s = %.9g, want %.9g (±%g relative)", name, got, want, rel)
	}
}

// Within says whether got is within tol of want, for tests that report
// the mismatch themselves. NaN is within nothing (NearRel and Near agree).
func Within(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol
}
