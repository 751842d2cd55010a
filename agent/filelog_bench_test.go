//go:build unix

package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

// BenchmarkConcurrentSessions runs turns in 2,000 sessions at once (or
// ENFORCER_BENCH_SESSIONS), each with its own agent and, but for "no log",
// its own file log. A turn is run-like: a model call fails and is retried,
// the answer breaks the contract and is corrected, the next call fails
// again, the last passes — six events (turn/started, two
// turn/modelRetryScheduled, turn/retryScheduled, output/schemaRetry,
// turn/completed). The model costs nothing, so the figure is what
// recording adds to the agent's own loop. An op is one turn; cpu-ns/op is
// the process's user and system time (getrusage), which leaves out what
// the kernel's own threads spend writing back; "fsync per record" is the
// file log before group commit: each record fsynced on its own.
func BenchmarkConcurrentSessions(b *testing.B) {
	sessions := 2000
	if v := os.Getenv("ENFORCER_BENCH_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("ENFORCER_BENCH_SESSIONS=%q, want a count", v)
		}
		sessions = n
	}
	b.Run("no log", func(b *testing.B) { benchSessions(b, sessions, nil) })
	b.Run("fsync per record", func(b *testing.B) { benchSessions(b, sessions, openFsyncPerRecord) })
	b.Run("group commit", func(b *testing.B) {
		benchSessions(b, sessions, func(path string) (events.Log, error) { return events.OpenFile(path) })
	})
}

func benchSessions(b *testing.B, sessions int, open func(path string) (events.Log, error)) {
	s, err := enforce.SchemaFor[Report]()
	if err != nil {
		b.Fatal(err)
	}
	answer := report1KiB(b)
	dir := b.TempDir()
	agents := make([]*agent.Agent, sessions)
	var streams []*events.Stream
	var logs []events.Log
	for i := range agents {
		opts := []agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(2),
			agent.WithModelRetry(agent.RetryPolicy{Backoff: func(int, error) time.Duration { return 0 }})}
		if open != nil {
			l, err := open(filepath.Join(dir, fmt.Sprintf("s%04d.ndjson", i)))
			if err != nil {
				b.Fatal(err)
			}
			st, err := events.NewStream(fmt.Sprintf("session-%04d", i), l)
			if err != nil {
				b.Fatal(err)
			}
			streams, logs = append(streams, st), append(logs, l)
			opts = append(opts, agent.WithEvents(st))
		}
		agents[i] = agent.New(runLikeModel(answer), opts...)
	}
	var turns atomic.Int64
	turns.Store(int64(b.N))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for turns.Add(-1) >= 0 {
				if _, err := a.Run(ctx, "Count the stock."); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	cpu := processCPU() - cpu0
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	var records int64
	for _, l := range logs {
		records += l.Last()
	}
	if want := 6 * int64(b.N); logs != nil && records != want {
		b.Fatalf("%d records for %d turns, want %d", records, b.N, want)
	}
	for _, st := range streams {
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// runLikeModel fails, breaks the contract, fails, then passes, in turn.
func runLikeModel(answer string) agent.Model {
	var calls int
	return agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		calls++
		switch calls % 4 {
		case 1, 3:
			return agent.Response{}, &agent.ProviderError{System: "bench", Kind: events.KindServerError, HTTPStatus: 500, Message: "scripted"}
		case 2:
			return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: `{"title":"x","items":"none"}`}}, nil
		}
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: answer}}, nil
	})
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fsyncPerRecord is a file log that never syncs on its own, and whose
// every Append fsyncs the file alone before it returns: the file log as it
// was before its appends shared a sync.
type fsyncPerRecord struct {
	events.Log
	f *os.File
}

func openFsyncPerRecord(path string) (events.Log, error) {
	l, err := events.OpenFile(path, events.SyncEvery(1<<30, 0))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		l.Close()
		return nil, err
	}
	return fsyncPerRecord{l, f}, nil
}

func (l fsyncPerRecord) Append(rec events.Record) error {
	if err := l.Log.Append(rec); err != nil {
		return err
	}
	return l.f.Sync()
}

func (l fsyncPerRecord) Close() error {
	l.f.Close()
	return l.Log.Close()
}
