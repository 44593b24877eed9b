//go:build nvml

package main

// nvmlTag: this test binary was built with -tags nvml.
const nvmlTag = true
