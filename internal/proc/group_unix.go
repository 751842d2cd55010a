//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd's process the leader of a new process group.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills every process of cmd's group: the group's id is the
// leader's pid, and it lives on while any member does.
func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil // nothing is left
	}
	return err
}
