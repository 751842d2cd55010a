//go:build !unix

package proc

import "time"

var epoch = time.Now()

// CPUTime is the time since the process started where its processor
// time is not known.
func CPUTime() time.Duration { return time.Since(epoch) }
