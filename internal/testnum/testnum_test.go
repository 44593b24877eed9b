package testnum

import (
	"math"
	"testing"
)

// recorder is a testing.TB that records whether Errorf was called.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestNear(t *testing.T) {
	for _, tc := range []struct {
		got, want, tol float64
		fail           bool
	}{
		{1.004, 1, 0.005, false},
		{1.006, 1, 0.005, true},
		{-2, -2, 0, false},
		{math.NaN(), 1, 10, true},
	} {
		r := &recorder{TB: t}
		Near(r, "x", tc.got, tc.want, tc.tol)
		if r.failed != tc.fail {
			t.Errorf("Near(%v, %v, %v) failed=%v, want %v", tc.got, tc.want, tc.tol, r.failed, tc.fail)
		}
	}
}

func TestNearRel(t *testing.T) {
	for _, tc := range []struct {
		got, want float64
		fail      bool
	}{
		{1e6 + 0.5, 1e6, false}, // 0.5 ≤ 1e-6 × 1e6 = 1
		{1e6 + 2, 1e6, true},
		{1e-7, 0, false}, // want below 1: an absolute millionth
		{2e-6, 0, true},
		{math.NaN(), 0, true},
		{math.NaN(), math.NaN(), true},
	} {
		r := &recorder{TB: t}
		NearRel(r, "x", tc.got, tc.want, 1e-6)
		if r.failed != tc.fail {
			t.Errorf("NearRel(%v, %v) failed=%v, want %v", tc.got, tc.want, r.failed, tc.fail)
		}
	}
}
