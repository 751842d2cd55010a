//go:build unix && !linux

package proc

import "syscall"

// dieWithParent does nothing: only Linux kills a child with its parent.
func dieWithParent(*syscall.SysProcAttr) {}
