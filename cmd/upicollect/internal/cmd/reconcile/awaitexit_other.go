//go:build !linux

package reconcile

import "os/exec"

// awaitExit waits for cmd to exit, and reaps it (reaped is true, err is
// cmd.Wait's): this system has no portable way to wait without reaping,
// so the group is killed after the command is reaped. Its id stays its
// own as long as a process of the group lives; only when the group is
// already empty could the id name another group by then.
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	return true, cmd.Wait()
}
