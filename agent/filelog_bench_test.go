//go:build unix

package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/internal/loadbench"
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
	sessions := loadbench.Sessions(b, 2000)
	answer := report1KiB(b)
	free := func() agent.Model { return runLikeModel(answer) }
	b.Run("no log", func(b *testing.B) { benchSessions(b, sessions, nil, free) })
	b.Run("fsync per record", func(b *testing.B) { benchSessions(b, sessions, openFsyncPerRecord, free) })
	b.Run("group commit", func(b *testing.B) { benchSessions(b, sessions, openFile, free) })
}

func openFile(path string) (events.Log, error) { return events.OpenFile(path) }

func benchSessions(b *testing.B, sessions int, open func(path string) (events.Log, error), newModel func() agent.Model) {
	s, err := enforce.SchemaFor[Report]()
	if err != nil {
		b.Fatal(err)
	}
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
		agents[i] = agent.New(newModel(), opts...)
	}
	ctx := context.Background()
	loadbench.Run(b, sessions, func(i int) error {
		_, err := agents[i].Run(ctx, "Count the stock.")
		return err
	})
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

// benchServerEnv makes the test binary the scripted server of
// BenchmarkConcurrentSessionsOverHTTP, in a process of its own.
const benchServerEnv = "ENFORCER_BENCH_SERVER"

// TestBenchServer is the scripted server when the benchmark starts this
// binary again; otherwise it skips. It prints its address, then answers
// /fail with a 500, /broken with an answer that breaks the contract and
// /ok with the passing one, each after 20ms, until its stdin closes.
func TestBenchServer(t *testing.T) {
	ok, _ := json.Marshal(chatReply{Content: report1KiB(t)})
	broken, _ := json.Marshal(chatReply{Content: `{"title":"x","items":"none"}`})
	loadbench.Serve(t, benchServerEnv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(20 * time.Millisecond) // the model thinking
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/fail":
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":{"message":"scripted"}}`))
		case "/broken":
			w.Write(broken)
		default:
			w.Write(ok)
		}
	}))
}

type chatReply struct {
	Content string `json:"content"`
}

// BenchmarkConcurrentSessionsOverHTTP is BenchmarkConcurrentSessions with
// a model that calls a scripted server in another process over HTTP, as
// an adapter calls a provider; "bare loop" makes the same calls with no
// agent and no log, the bar the file log is measured against.
func BenchmarkConcurrentSessionsOverHTTP(b *testing.B) {
	sessions := loadbench.Sessions(b, 2000)
	url := "http://" + loadbench.Server(b, "TestBenchServer", benchServerEnv)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: sessions, MaxIdleConnsPerHost: sessions}}
	defer client.CloseIdleConnections()
	call := func(ctx context.Context, path string, req agent.Request) (agent.Response, error) {
		body, err := json.Marshal(req.Messages)
		if err != nil {
			return agent.Response{}, err
		}
		hreq, err := http.NewRequestWithContext(ctx, "POST", url+path, bytes.NewReader(body))
		if err != nil {
			return agent.Response{}, err
		}
		resp, err := client.Do(hreq)
		if err != nil {
			return agent.Response{}, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return agent.Response{}, err
		}
		if resp.StatusCode != http.StatusOK {
			return agent.Response{}, &agent.ProviderError{System: "bench", Kind: events.KindServerError, HTTPStatus: resp.StatusCode, Message: string(data)}
		}
		var r chatReply
		if err := json.Unmarshal(data, &r); err != nil {
			return agent.Response{}, err
		}
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: r.Content}}, nil
	}
	script := []string{"/fail", "/broken", "/fail", "/ok"}
	newModel := func() agent.Model {
		var calls int
		return agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
			calls++
			return call(ctx, script[(calls-1)%4], req)
		})
	}
	b.Run("bare loop", func(b *testing.B) {
		ctx := context.Background()
		req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Count the stock."}}}
		loadbench.Run(b, sessions, func(int) error {
			for _, path := range script {
				_, err := call(ctx, path, req)
				var pe *agent.ProviderError
				if err != nil && !errors.As(err, &pe) {
					return err
				}
			}
			return nil
		})
	})
	b.Run("no log", func(b *testing.B) { benchSessions(b, sessions, nil, newModel) })
	b.Run("fsync per record", func(b *testing.B) { benchSessions(b, sessions, openFsyncPerRecord, newModel) })
	b.Run("group commit", func(b *testing.B) { benchSessions(b, sessions, openFile, newModel) })
}
