// Helpers shared by the package's tests.

package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func collect(ctx context.Context, s *Stream, after string) <-chan yielded {
	out := make(chan yielded)
	go func() {
		defer close(out)
		for n, err := range s.Subscribe(ctx, after) {
			out <- yielded{n, err}
		}
	}()
	return out
}

// seqOf returns the sequence number a notification was folded from.
func seqOf(t testing.TB, n Notification) int64 {
	t.Helper()
	pos, err := parseCursor(testSession, n.Cursor())
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

func appendStarts(t testing.TB, s *Stream, n int) []Notification {
	t.Helper()
	var ns []Notification
	for i := range n {
		got, err := s.Append(TurnStarted{TurnID: fmt.Sprint("t", i)})
		if err != nil {
			t.Fatal(err)
		}
		ns = append(ns, got)
	}
	return ns
}

func newTestStream(t *testing.T) *Stream {
	t.Helper()
	s, err := NewStream(testSession, NewMemoryLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fixedClock returns a clock that starts at a fixed instant and advances
// 250ms per call, so records get distinct, deterministic times and IDs.
func fixedClock() func() time.Time {
	t := time.UnixMilli(1754590940000).UTC()
	return func() time.Time {
		t = t.Add(250 * time.Millisecond)
		return t
	}
}

// transcript is one session with every kind of event: a turn that retries
// twice and fails its output contract once, a failed turn, a reclaimed one.
func transcript() []Event {
	return []Event{
		TurnStarted{TurnID: "t1"},
		ModelRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: 4 * time.Second, ErrorKind: KindRateLimit, HTTPStatus: 429, System: "meta"},
		TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: 2 * time.Second, Reason: "  provider stream\n\tdisconnected \x00", Kind: RetryTurn},
		SchemaRetry{TurnID: "t1", Attempt: 1, RetriesRemaining: 1, Iteration: 2, Stage: "schema-validate", Error: "city: city is required", Path: "/city", CorrectiveMessageHash: "0c1f2e3d",
			InputTokens: 1830, OutputTokens: 42},
		SchemaExhausted{TurnID: "t1", Attempt: 2, Iteration: 3, Stage: "json-parse", Error: "invalid character 'x' at 1:1",
			Reason: ExhaustRepeated, InputTokens: 1902, OutputTokens: 17},
		ToolCallRejected{TurnID: "t1", Call: 1, Iteration: 3, Tool: "lookup", CallID: "call_1", Outcome: "retried", Stage: "schema-validate",
			Error: "city: city is required", Path: "/city", CorrectiveMessageHash: "5e1f0a2b"},
		RulesJudged{TurnID: "t1", Attempt: 3, Iteration: 4, Rules: []Ruling{
			{Rule: "about-paris", Verdict: "failed", Path: "/city", Reason: "the forecast is for Lyon", Provider: "acme", Model: "judge",
				InputTokens: 112, OutputTokens: 14, CachedTokens: 100, ReasoningTokens: 4, Money: 0.0000252},
			{Rule: "no-pii", Verdict: "passed"}}},
		RulesJudged{TurnID: "t1", Rules: []Ruling{{Rule: "injection", Verdict: "warned", Path: "", Reason: "forbidden word \"ignore\""}}},
		TurnCompleted{TurnID: "t1", Terminal: "completed", Duration: 48211 * time.Millisecond, TimeToFirstToken: 902 * time.Millisecond,
			Usage: &Usage{InputTokens: 48210, OutputTokens: 1211, CachedTokens: 40100, ReasoningTokens: 384}},
		TurnStarted{TurnID: "t2", CommandID: "c2"},
		ModelRetry{TurnID: "t2", Attempt: 2, NextAttempt: 3, MaxAttempts: 3, RetryDelay: 0},
		TurnCompleted{TurnID: "t2", Terminal: "failed", Reason: "model gave up",
			Error: &TurnError{Kind: "modelError", Message: "provider returned 503", Retryable: true}},
		TurnUnqueued{TurnID: "t3", CommandID: "c3"},
		TurnCompleted{TurnID: "t4", Terminal: "cancelled"},
	}
}

// appendAll appends evs to a fresh in-memory stream with a fixed clock.
func appendAll(t testing.TB, evs []Event) (*Stream, []Notification) {
	t.Helper()
	s, err := NewStream(testSession, NewMemoryLog(), WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var ns []Notification
	for _, ev := range evs {
		n, err := s.Append(ev)
		if err != nil {
			t.Fatalf("Append(%#v): %v", ev, err)
		}
		ns = append(ns, n)
	}
	return s, ns
}

func frameBytes(t testing.TB, n Notification) []byte {
	t.Helper()
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openStream(t testing.TB, path string, opts ...FileOption) *Stream {
	t.Helper()
	l, err := OpenFile(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStream(testSession, l, WithClock(fixedClock()))
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// writeLog writes the transcript to a new file log and returns its path
// and the bytes of each line.
func writeLog(t testing.TB) (string, [][]byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.ndjson")
	s := openStream(t, path)
	for _, ev := range transcript() {
		if _, err := s.Append(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, bytes.SplitAfter(b, []byte("\n"))[:len(transcript())]
}

// get opens the event stream with the given Last-Event-ID.
func get(t *testing.T, url, lastID string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("got %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	return resp
}
