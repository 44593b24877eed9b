package config

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/ingest/prom"
	"github.com/finops-oss/finops/internal/spelling"
	"github.com/finops-oss/finops/internal/watch"
)

// config is a leaf: the few names and defaults of other packages it checks
// against are plain values here. These tests (which may import the owners:
// tests are not part of config's import graph) keep each equal to its
// owner's, so that a change there fails here instead of drifting.

func TestDefaultsMatchOwners(t *testing.T) {
	d := analysis.DefaultParams()
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"DefaultIdleUtilization", DefaultIdleUtilization, d.IdleThreshold},
		{"DefaultTargetBandLow", DefaultTargetBandLow, d.TargetBandLow},
		{"DefaultTargetBandHigh", DefaultTargetBandHigh, d.TargetBandHigh},
		{"DefaultStaleAfter", DefaultStaleAfter, analysis.DefaultStaleAfter},
		{"DefaultTrendWeeks", DefaultTrendWeeks, analysis.DefaultTrendWk},
		{"DefaultPromMaxResponseBytes", int64(DefaultPromMaxResponseBytes), int64(prom.DefaultMaxResponseBytes)},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, the owner's is %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestNamesMatchOwners(t *testing.T) {
	modes := []string{finops.ModeHourly, finops.ModeDaily, finops.ModeWeekly, finops.ModeMonthly, finops.ModeSpot, finops.ModeCommitted}
	if !slices.Equal(pricingModes(), modes) {
		t.Errorf("pricing modes %q, finops has %q", pricingModes(), modes)
	}
	for _, tc := range []struct{ got, want string }{
		{actionStop, watch.ActionStop}, {actionRelease, watch.ActionRelease},
		{dimTeam, analysis.DimTeam}, {dimAccount, analysis.DimAccount}, {dimProvider, analysis.DimProvider},
		{dimTagPrefix, analysis.DimTagPrefix},
		{spreadNone, analysis.SpreadNone}, {spreadProportional, analysis.SpreadProportional},
		{spreadEven, analysis.SpreadEven}, {spreadTeamPrefix, analysis.SpreadTeamPrefix},
	} {
		if tc.got != tc.want {
			t.Errorf("config says %q where its owner says %q", tc.got, tc.want)
		}
	}
	// validDimension is analysis.ValidDimension on generated names.
	rng := rand.New(rand.NewSource(36))
	parts := []string{"team", "account", "provider", "tag:", "tag", ":", " ", "project", "Team", "tags:", ""}
	for n := 0; n < 2000; n++ {
		d := parts[rng.Intn(len(parts))] + parts[rng.Intn(len(parts))]
		if validDimension(d) != analysis.ValidDimension(d) {
			t.Fatalf("dimension %q: config says %v, analysis %v", d, validDimension(d), analysis.ValidDimension(d))
		}
	}
}

// TestNearestMatchesSpelling: config's copy of the "did you mean" rule
// (spelling.go) answers as internal/spelling does, on 5,000 seeded random
// misspellings of random key lists.
func TestNearestMatchesSpelling(t *testing.T) {
	rng := rand.New(rand.NewSource(3636))
	word := func() string {
		b := make([]byte, 1+rng.Intn(12))
		for i := range b {
			b[i] = "abcdeimnrstu_:."[rng.Intn(15)]
		}
		return string(b)
	}
	found := 0
	for n := 0; n < 5000; n++ {
		known := make([]string, 1+rng.Intn(8))
		for i := range known {
			known[i] = word()
		}
		got := known[rng.Intn(len(known))]
		if b := []byte(got); rng.Intn(3) > 0 && len(b) > 1 {
			b[rng.Intn(len(b))] = "xyz"[rng.Intn(3)] // one edit away, mostly
			got = string(b)
		} else if rng.Intn(2) == 0 {
			got = word()
		}
		want := spelling.Nearest(got, known)
		if s := nearest(got, known); s != want {
			t.Fatalf("nearest(%q, %q) = %q, spelling says %q", got, known, s, want)
		}
		if want != "" {
			found++
		}
	}
	if found < 1000 {
		t.Errorf("only %d of 5,000 cases had a nearest name: the generator no longer tests the suggestion", found)
	}
}
