//go:build !(nvml && cgo)

package nvml

import (
	"context"
	"errors"
)

// Available reports whether this build can collect: it was built with
// -tags nvml and cgo.
const Available = false

// Collect fails: this binary was built without the nvml tag or without cgo.
func Collect(ctx context.Context, opt Options) error {
	return errors.New("finops collect nvml is not in this build (it needs -tags nvml and cgo): on the GPU host build it with " + BuildHint)
}
