//go:build !unix

package reconcile

import "os/exec"

// killGroup leaves cmd as it is: without process groups, cancelling it
// kills the command itself.
func killGroup(*exec.Cmd) {}
