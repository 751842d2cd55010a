// stream: a turn whose provider call is rate limited, then overloaded,
// then answers. The agent records each scheduled retry on the session
// stream BEFORE it waits; the stream is served as Server-Sent Events on a
// loopback port, and a client in the same program renders each retry with
// a countdown it derives locally — instead of dead air. It exits by itself.
//
//	go run ./examples/stream
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

func main() {
	if err := run(context.Background(), os.Stdout, time.Second); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// flakyProvider fails twice the way real providers do, then answers.
// unit scales its Retry-After (a second when run, zero in tests).
func flakyProvider(unit time.Duration) agent.Model {
	var mu sync.Mutex
	calls := 0
	return agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		switch calls {
		case 1:
			return agent.Response{}, &agent.ProviderError{System: "openai", Kind: events.KindRateLimit,
				HTTPStatus: 429, RetryAfter: 3 * unit, Message: "Rate limit reached for requests"}
		case 2:
			return agent.Response{}, &agent.ProviderError{System: "openai", Kind: events.KindOverloaded,
				HTTPStatus: 503, RetryAfter: 2 * unit, Message: "The server is overloaded"}
		}
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "Here is your summary."}}, nil
	})
}

func run(ctx context.Context, out io.Writer, unit time.Duration) error {
	stream, err := events.NewStream("demo-session", events.NewMemoryLog())
	if err != nil {
		return err
	}
	defer stream.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: stream}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(out, "serving the session stream at %s\n", url)

	// The client connects first, as a UI would, then the turn starts.
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	rendered := make(chan error, 1)
	go func() { rendered <- render(out, resp.Body, unit) }()

	policy := agent.RetryPolicy{MaxAttempts: 3} // DefaultBackoff honours Retry-After
	if unit == 0 {
		policy.Backoff = func(int, error) time.Duration { return 0 } // tests do not wait
	}
	a := agent.New(flakyProvider(unit), agent.WithEvents(stream), agent.WithModelRetry(policy))
	res, runErr := a.Run(agent.ContextWithTurnID(ctx, "turn-1"), "Summarize the meeting notes")
	if err := <-rendered; err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	fmt.Fprintf(out, "answer: %s\n", res.Output)
	return nil
}

// render prints each notification as it arrives; while a retry is
// pending it ticks the countdown down once per unit, from the local clock.
func render(out io.Writer, body io.Reader, unit time.Duration) error {
	type arrival struct {
		n   events.Notification
		err error
	}
	arrivals := make(chan arrival)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for n, err := range events.ReadSSE(body) {
			select {
			case arrivals <- arrival{n, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
		select {
		case arrivals <- arrival{err: io.ErrUnexpectedEOF}:
		case <-done:
		}
	}()

	var pending *events.Notification
	var since time.Time
	var tick <-chan time.Time
	var ticker *time.Ticker
	if unit > 0 {
		ticker = time.NewTicker(unit)
		defer ticker.Stop()
		tick = ticker.C
	}
	for {
		select {
		case a := <-arrivals:
			if a.err != nil {
				return a.err
			}
			n := a.n
			fmt.Fprintf(out, "  %s\n", n.Describe(0))
			pending, since = nil, time.Now()
			if ticker != nil {
				ticker.Reset(unit) // tick from this arrival
			}
			switch n.Method {
			case "turn/retryScheduled", "turn/modelRetryScheduled":
				pending = &n
			case "turn/completed":
				return nil
			}
		case <-tick:
			if pending != nil {
				fmt.Fprintf(out, "  %s\n", pending.Describe(time.Since(since)))
			}
		}
	}
}
