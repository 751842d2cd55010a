//go:build !unix

package proc

import (
	"os"
	"os/exec"
)

var (
	interrupt = os.Kill // no interrupt to send a process here
	kill      = os.Kill
)

// ownGroup does nothing: without process groups only the child itself
// can be stopped.
func ownGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, _ os.Signal) error { return cmd.Process.Kill() }
