package events_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/enforcer-go/enforcer/events"
)

// A turn that hits a rate limit, retries, and completes. The client side
// renders each notification; WaitTurn returns on the terminal only.
func Example() {
	s, err := events.NewStream("session-1", events.NewMemoryLog())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	for _, ev := range []events.Event{
		events.TurnStarted{TurnID: "t1"},
		events.ModelRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
			RetryDelay: 4 * time.Second, ErrorKind: events.KindRateLimit, HTTPStatus: 429, System: "meta"},
		events.TurnRetry{TurnID: "t1", Attempt: 2, NextAttempt: 3, MaxAttempts: 3,
			RetryDelay: 2500 * time.Millisecond, Reason: "provider stream\n disconnected"},
		events.TurnCompleted{TurnID: "t1", Terminal: "completed"},
	} {
		n, err := s.Append(ev)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(n.Describe(0))
	}
	n, err := s.WaitTurn(context.Background(), "t1")
	fmt.Println(n.Method, err)
	// Output:
	// turn started
	// attempt 1/3 · retrying in 4s · rate limited
	// attempt 2/3 · retrying in 3s · provider stream disconnected
	// turn completed
	// turn/completed <nil>
}

// Clients count down locally from the recorded delay.
func ExampleNotification_Describe() {
	s, _ := events.NewStream("session-1", events.NewMemoryLog())
	defer s.Close()
	n, _ := s.Append(events.ModelRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
		RetryDelay: 4 * time.Second, ErrorKind: events.KindOverloaded})
	for _, elapsed := range []time.Duration{0, 1500 * time.Millisecond, 4 * time.Second} {
		fmt.Println(n.Describe(elapsed))
	}
	// Output:
	// attempt 1/3 · retrying in 4s · provider overloaded
	// attempt 1/3 · retrying in 3s · provider overloaded
	// attempt 1/3 · retrying now · provider overloaded
}

// The frame a client receives for one record. Folding is pure: the same
// record always gives the same bytes.
func ExampleRecord_Notification() {
	n, err := events.Record{Stream: "s1", Sequence: 41, ID: "rec-41",
		Event: events.TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
			RetryDelay: 2 * time.Second, Reason: "provider stream disconnected"}}.Notification()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n%s\n", n.Method, n.Params)
	// Output:
	// turn/retryScheduled
	// {"sessionId":"s1","viewCursor":"v:s1:000000000041:4aaf97e0308963ac","sourceRange":{"stream":{"kind":"session","id":"s1"},"first":{"id":"rec-41","sequence":41},"last":{"id":"rec-41","sequence":41}},"turnId":"t1","attempt":1,"nextAttempt":2,"maxAttempts":3,"retryDelayMs":2000,"reason":"provider stream disconnected"}
}

// Resume after the last notification seen.
func ExampleStream_Subscribe() {
	s, _ := events.NewStream("session-1", events.NewMemoryLog(), events.WithClock(clock()))
	defer s.Close()
	first, _ := s.Append(events.TurnStarted{TurnID: "t1"})
	s.Append(events.TurnCompleted{TurnID: "t1", Terminal: "cancelled"})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for n, err := range s.Subscribe(ctx, first.Cursor()) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(n.Method, n.Cursor())
		break // or keep going: new notifications arrive as they are appended
	}
	// Output:
	// turn/completed v:session-1:000000000002:19427705050d7da6
}

// A file log survives restarts; cursors continue where they left off.
func ExampleOpenFile() {
	dir, _ := os.MkdirTemp("", "events")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "session-1.ndjson")
	now := clock() // a fixed clock, for the output below; programs use the default

	for range 2 { // two runs of the program
		l, err := events.OpenFile(path, events.SyncEvery(64, time.Second))
		if err != nil {
			log.Fatal(err)
		}
		s, err := events.NewStream("session-1", l, events.WithClock(now))
		if err != nil {
			log.Fatal(err)
		}
		n, _ := s.Append(events.TurnStarted{TurnID: "t1"})
		fmt.Println(n.Cursor())
		s.Close()
	}
	// Output:
	// v:session-1:000000000001:51da4a20937144a4
	// v:session-1:000000000002:454eb9e27fa9cc22
}

// clock starts at a fixed instant and advances a second per call.
func clock() func() time.Time {
	t := time.Date(2025, 8, 7, 18, 22, 20, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

// Serve a session over Server-Sent Events and render it on the client.
func ExampleReadSSE() {
	s, _ := events.NewStream("session-1", events.NewMemoryLog())
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	s.Append(events.ModelRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 2,
		RetryDelay: 1200 * time.Millisecond, ErrorKind: events.KindTimeout})

	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	for n, err := range events.ReadSSE(resp.Body) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(n.Describe(0))
		break // a real client keeps reading, and reconnects with Last-Event-ID = n.Cursor()
	}
	// Output:
	// attempt 1/2 · retrying in 2s · timed out
}

// A process that serves the UI follows the session that a worker writes:
// here both ends run in one process, over one file.
func ExampleFollow() {
	dir, err := os.MkdirTemp("", "follow")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "session-1.ndjson")

	// The worker: the one writer of the session.
	wlog, err := events.OpenFile(path)
	if err != nil {
		log.Fatal(err)
	}
	w, err := events.NewStream("session-1", wlog)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	// The UI server: a read-only stream over the same file; serve it with
	// http.Handle("/sessions/session-1", r).
	rlog, err := events.FollowFile(path, events.PollEvery(10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	r, err := events.Follow("session-1", rlog)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()

	w.Append(events.TurnStarted{TurnID: "t1"})
	w.Append(events.TurnCompleted{TurnID: "t1", Terminal: "completed"})
	n, err := r.WaitTurn(context.Background(), "t1")
	fmt.Println(n.Method, err)
	// Output: turn/completed <nil>
}

// A Go client decodes each notification into the event it was folded
// from, with every field — the retry delay too — and stops at the turn's
// end.
func ExampleNotification_Event() {
	s, _ := events.NewStream("session-1", events.NewMemoryLog())
	defer s.Close()
	s.Append(events.TurnStarted{TurnID: "t1"})
	s.Append(events.TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
		RetryDelay: 0, Reason: "answer broke the output contract at json-parse", Kind: events.RetryCorrective})
	s.Append(events.ModelRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
		RetryDelay: 4 * time.Second, ErrorKind: events.KindRateLimit, HTTPStatus: 429})
	s.Append(events.TurnCompleted{TurnID: "t1", Terminal: events.TerminalCompleted, Duration: 6 * time.Second})

	for n, err := range s.Subscribe(context.Background(), "") {
		if err != nil {
			log.Fatal(err)
		}
		ev, err := n.Event()
		if err != nil {
			log.Fatal(err)
		}
		switch ev := ev.(type) {
		case events.TurnRetry:
			fmt.Println(n.Method, ev.Kind, "attempt", ev.Attempt, "delay", ev.RetryDelay)
		case events.ModelRetry:
			fmt.Println(n.Method, ev.ErrorKind, ev.HTTPStatus, "delay", ev.RetryDelay)
		case events.TurnCompleted:
			fmt.Println(n.Method, ev.Terminal, "in", ev.Duration)
		default:
			fmt.Println(n.Method)
		}
		if n.IsTerminal() {
			break
		}
	}
	// Output:
	// turn/started
	// turn/retryScheduled corrective attempt 1 delay 0s
	// turn/modelRetryScheduled rate_limit 429 delay 4s
	// turn/completed completed in 6s
}

// Only turn/completed and turn/unqueued end a turn.
func ExampleNotification_IsTerminal() {
	s, _ := events.NewStream("session-1", events.NewMemoryLog())
	defer s.Close()
	for _, ev := range []events.Event{
		events.TurnStarted{TurnID: "t1"},
		events.ModelRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 2, RetryDelay: time.Second},
		events.TurnCompleted{TurnID: "t1", Terminal: events.TerminalCancelled},
	} {
		n, _ := s.Append(ev)
		fmt.Println(n.Method, n.IsTerminal())
	}
	// Output:
	// turn/started false
	// turn/modelRetryScheduled false
	// turn/completed true
}

// The event stream starts with a reconnection hint; an idle stream then
// carries a comment at each keep-alive interval.
func ExampleWithKeepAlive() {
	s, err := events.NewStream("session-1", events.NewMemoryLog(), events.WithKeepAlive(20*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	fmt.Print(line)
	// Output:
	// retry: 1000
}

// A remote client that loses its connection resumes after the last event
// it saw: it sends that event's cursor as Last-Event-ID and gets only what
// came after, each event once.
func ExampleReadSSE_resume() {
	s, _ := events.NewStream("session-1", events.NewMemoryLog())
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	s.Append(events.TurnStarted{TurnID: "t1"})
	s.Append(events.ModelRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
		RetryDelay: 4 * time.Second, ErrorKind: events.KindRateLimit, HTTPStatus: 429})

	last := "" // the cursor of the last event read
	// read reads until want events have come or the turn ends.
	read := func(want int) {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close() // here: the connection drops
		for n, err := range events.ReadSSE(resp.Body) {
			if err != nil {
				log.Fatal(err)
			}
			last = n.Cursor()
			switch n.Method {
			case events.MethodModelRetry:
				ev, err := n.Event()
				if err != nil {
					log.Fatal(err)
				}
				r := ev.(events.ModelRetry)
				fmt.Println(n.Method, r.ErrorKind, "retry in", r.RetryDelay)
			default:
				fmt.Println(n.Method)
			}
			if want--; want == 0 || n.IsTerminal() {
				return
			}
		}
	}
	read(2)
	s.Append(events.TurnCompleted{TurnID: "t1", Terminal: events.TerminalCompleted})
	read(10)
	// Output:
	// turn/started
	// turn/modelRetryScheduled rate_limit retry in 4s
	// turn/completed
}
