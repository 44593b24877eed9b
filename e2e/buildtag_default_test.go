//go:build !nvml

package e2e

// nvmlTag: this test binary was built with -tags nvml.
const nvmlTag = false
