package events

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// benchDeliver appends b.N retry events to a stream over l while one
// subscriber receives them, and reports notifications per second end to
// end (append, fold, durable write, delivery).
func benchDeliver(b *testing.B, l Log) {
	s, err := NewStream(testSession, l)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan int)
	go func() {
		n := 0
		for _, err := range s.Subscribe(ctx, "") {
			if err != nil {
				break
			}
			if n++; n == b.N {
				break
			}
		}
		got <- n
	}()
	ev := TurnRetry{TurnID: "018f6a1e-9b3c-7c21-a54a-2f30bd3c9f10", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
		RetryDelay: 2 * time.Second, Reason: "provider stream disconnected"}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := s.Append(ev); err != nil {
			b.Fatal(err)
		}
	}
	if n := <-got; n != b.N {
		b.Fatalf("subscriber got %d of %d", n, b.N)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "notif/s")
}

func BenchmarkDeliverMemory(b *testing.B) { benchDeliver(b, NewMemoryLog()) }

func BenchmarkDeliverFileBatchedFsync(b *testing.B) {
	l, err := OpenFile(filepath.Join(b.TempDir(), "s.ndjson"), SyncEvery(256, 50*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	benchDeliver(b, l)
}

func BenchmarkDeliverFilePerRecordFsync(b *testing.B) {
	l, err := OpenFile(filepath.Join(b.TempDir(), "s.ndjson"))
	if err != nil {
		b.Fatal(err)
	}
	benchDeliver(b, l)
}

func BenchmarkFold(b *testing.B) {
	rec := Record{Stream: testSession, Sequence: 41, ID: "018f9008-71aa-7000-8000-000000000041",
		Event: TurnRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: 2 * time.Second, Reason: "provider stream disconnected"}}
	b.ReportAllocs()
	for range b.N {
		if _, err := rec.Notification(); err != nil {
			b.Fatal(err)
		}
	}
}
