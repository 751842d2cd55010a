//go:build !unix

package proc

import "os/exec"

// ownGroup does nothing where there are no process groups: only the
// child itself is killed there.
func ownGroup(*exec.Cmd) {}

// killGroup kills the child.
func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
