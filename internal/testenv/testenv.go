// Package testenv is CI's rule for tests that need a part from outside Go (a
// server binary, Chromium, the fetched ECharts library): where the part is
// missing they skip on a developer's machine and fail in CI (CI=true) or with
// FINOPS_TEST_REQUIRE=1, so CI can never pass without running them. Only
// tests import it.
package testenv

import (
	"os"
	"testing"
)

// Required reports whether a missing part fails the test instead of
// skipping it.
func Required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("FINOPS_TEST_REQUIRE") == "1"
}

// MissingPrefix starts the skip message of a test whose part is missing,
// so that make test's summary (internal/testsummary) tells such skips from
// benchmarks and helper processes that skip by design.
const MissingPrefix = "missing part: "

// Missing ends tb because a part is missing: msg says which and how to get it.
func Missing(tb testing.TB, msg string) {
	tb.Helper()
	if Required() {
		tb.Fatal(msg)
	}
	tb.Skip(MissingPrefix + msg)
}
