//go:build !cgo

package nvml

import (
	"context"
	"errors"
)

// Available reports whether this build can collect (it was built with cgo).
const Available = false

// Collect fails: go-nvml needs cgo, and this binary was built without it
// (the static release build).
func Collect(ctx context.Context, opt Options) error {
	return errors.New("finops collect nvml needs a cgo build of finops: build it on the GPU host with " +
		"CGO_ENABLED=1 go build -o finops-nvml ./cmd/finops (see deploy/README.md)")
}
