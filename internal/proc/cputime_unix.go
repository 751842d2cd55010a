//go:build unix

package proc

import (
	"syscall"
	"time"
)

// CPUTime is the processor time, user and system, that this process has
// used (getrusage): what a benchmark on a machine shared with other work
// reports beside wall time, which that work moves far more.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
