//go:build unix

package enforce_test

import (
	"syscall"
	"time"
)

// processTime is the processor time the process has used: benchmarks
// report it beside wall time, which a machine shared with other work
// moves far more.
func processTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
