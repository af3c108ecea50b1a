//go:build !unix

package reconcile

import "os/exec"

// setGroup leaves cmd as it is: there are no process groups here.
func setGroup(*exec.Cmd) {}

// killGroup kills the command itself: without process groups, what it
// started is out of reach.
func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
