package events

import (
	"bufio"
	"context"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/internal/loadbench"
	"github.com/enforcer-go/enforcer/internal/proc"
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

// BenchmarkCrossProcessLatencyFile measures, per record, the time from
// asking a writer process (this test binary, re-run) to append to the SSE
// frame reaching a client of a stream in this process that follows the
// file (pipe, append with fsync, poll, fold, HTTP); it reports the median
// and p99, at the default poll interval and at 5ms.
func BenchmarkCrossProcessLatencyFile(b *testing.B) {
	for _, poll := range []time.Duration{defaultPoll, 5 * time.Millisecond} {
		b.Run("poll="+poll.String(), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "session.ndjson")
			l, err := OpenFile(path)
			if err != nil {
				b.Fatal(err)
			}
			l.Close()
			fl, err := FollowFile(path, PollEvery(poll))
			if err != nil {
				b.Fatal(err)
			}
			r, err := Follow(testSession, fl)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			srv := httptest.NewServer(r)
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			next, stop := iter.Pull2(ReadSSE(resp.Body))
			defer stop()

			cmd := proc.ForTest(b, os.Args[0], "-test.run=^TestSSEOverAFollowedFileDeliversAnotherProcesssTurns$")
			cmd.Env = append(os.Environ(), "EVENTS_FOLLOW_WRITER="+path, "EVENTS_FOLLOW_STEP=1")
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer cmd.Wait()
			defer in.Close()
			acks := bufio.NewScanner(out)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				if _, err := io.WriteString(in, "append\n"); err != nil {
					b.Fatal(err)
				}
				if _, err, ok := next(); err != nil || !ok {
					b.Fatalf("the SSE stream ended: %v", err)
				}
				lat = append(lat, time.Since(start))
				if !acks.Scan() {
					b.Fatal("the writer process ended")
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkFileAppend measures what a file log's Append costs, an op being
// one record of a run-like size (a turn/retryScheduled with a reason).
// "unsynced" appends with SyncEvery(∞): the log's own work — encoding, the
// path check, the write — without waiting for a disk; "group commit"
// appends from 64 goroutines, a log each, every append waiting for the
// sync that covers it (what BenchmarkConcurrentSessions in agent pays per
// record). cpu-ns/op is the process's user and system time (getrusage).
func BenchmarkFileAppend(b *testing.B) {
	b.Run("unsynced", func(b *testing.B) {
		l, err := OpenFile(filepath.Join(b.TempDir(), "s.ndjson"), SyncEvery(1<<30, 0))
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		benchAppends(b, []Log{l})
	})
	b.Run("group commit", func(b *testing.B) {
		logs := make([]Log, 64)
		for i := range logs {
			l, err := OpenFile(filepath.Join(b.TempDir(), "s.ndjson"))
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			logs[i] = l
		}
		benchAppends(b, logs)
	})
}

// benchAppends appends b.N records, spread over logs, each log's from a
// goroutine of its own.
func benchAppends(b *testing.B, logs []Log) {
	ev := TurnRetry{TurnID: "018f6a1e-9b3c-7c21-a54a-2f30bd3c9f10", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
		RetryDelay: 2 * time.Second, Reason: "answer broke the output contract at schema-validate /items/3/quantity", Kind: RetryCorrective}
	at := time.UnixMilli(1754590940500).UTC()
	seqs := make([]int64, len(logs))
	for i, l := range logs {
		seqs[i] = l.Last()
	}
	loadbench.Run(b, len(logs), func(i int) error {
		seqs[i]++
		return logs[i].Append(Record{Stream: testSession, Sequence: seqs[i], ID: recordID(at, uint32(i), seqs[i]), Time: at, Event: ev})
	})
}
