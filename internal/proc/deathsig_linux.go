package proc

import "syscall"

// dieWithParent has the kernel kill the child when the thread that
// started it exits, which the Go runtime does only when the process
// does: a test binary killed at its -timeout takes its children along.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
