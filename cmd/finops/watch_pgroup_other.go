//go:build !unix

package main

import "os/exec"

// setProcessGroup: without process groups, the timeout kills the command only.
func setProcessGroup(*exec.Cmd) {}
