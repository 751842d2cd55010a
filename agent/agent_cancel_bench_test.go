package agent_test

import (
	"context"
	"testing"
)

// The Cancellable benchmarks are BenchmarkRun1KiB and
// BenchmarkRunTypedStreamed16B under a context that can end, where the
// model call runs on a goroutine of its own so that a model that ignores
// the context does not hold the run (see the package doc's Cancellation).

func BenchmarkRun1KiBCancellable(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	benchRun1KiB(b, ctx)
}

func BenchmarkRunTypedStreamed16BCancellable(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	benchRunTypedStreamed16B(b, ctx)
}
