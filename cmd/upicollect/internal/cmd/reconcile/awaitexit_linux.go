package reconcile

import (
	"os/exec"
	"syscall"
	"unsafe"
)

// pPID is waitid's P_PID: wait for the process of the given id.
const pPID = 1

// awaitExit waits until cmd's process has exited and leaves it unreaped
// (waitid with WNOWAIT, as os.Process.Wait does before it reaps): until
// cmd.Wait reaps it, its id, and so its process group's, names no other
// process. reaped is false: the caller's cmd.Wait reaps it.
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	var siginfo [16]uint64 // a siginfo_t is 128 bytes
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(cmd.Process.Pid),
			uintptr(unsafe.Pointer(&siginfo[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			return false, nil // any other error comes again from cmd.Wait
		}
	}
}
