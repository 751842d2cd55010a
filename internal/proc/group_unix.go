//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

const (
	interrupt = syscall.SIGINT
	kill      = syscall.SIGKILL
)

// ownGroup makes cmd's process the leader of a new process group: a
// signal to the group then reaches what it starts too.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	dieWithParent(cmd.SysProcAttr)
}

// signalGroup sends sig to every process of cmd's group, whose id is
// the leader's pid.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if err == syscall.ESRCH {
		return nil // nothing is left
	}
	return err
}
