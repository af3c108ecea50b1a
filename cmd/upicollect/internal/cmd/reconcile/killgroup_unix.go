//go:build unix

package reconcile

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own and makes its
// cancellation kill the whole group: a shell's children die with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
