//go:build !unix

package native_test

import "time"

var epoch = time.Now()

// processTime is wall time where the processor's is not known.
func processTime() time.Duration { return time.Since(epoch) }
