//go:build unix

package reconcile

import (
	"os/exec"
	"syscall"
)

// setGroup makes cmd start in a process group of its own, whose id is its
// process id.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process of cmd's group: the command, when it
// still runs, and whatever it started and left there. Once cmd is reaped
// and its group empty, the group's id may name another one: call it
// before cmd is reaped (see awaitExit).
func killGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
