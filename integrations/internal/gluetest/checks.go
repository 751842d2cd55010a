package gluetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

// RetriesRateLimitAndOverload runs an agent over the model model makes
// of a server that answers 429 (with Retry-After) and then 503 before
// ok, with agent.WithModelRetry and a zero-delay policy: the run must
// retry both, pass, and record a turn/modelRetryScheduled for each with
// its kind, status and system.
func RetriesRateLimitAndOverload(t *testing.T, system string, model func(url string) agent.Model, ok Reply, answer string) {
	t.Helper()
	srv := NewServer(t,
		Reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: Error("rate_limit_exceeded", "Rate limit reached")},
		Reply{Status: 503, Body: Error("server_error", "The engine is currently overloaded")},
		ok)
	rec := &Recorder{}
	a := agent.New(model(srv.URL), agent.WithEvents(rec),
		agent.WithModelRetry(agent.RetryPolicy{Backoff: func(int, error) time.Duration { return 0 }}))
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if res.Output != answer {
		t.Errorf("output = %q, want %q", res.Output, answer)
	}
	if got := len(srv.Requests()); got != 3 {
		t.Errorf("server saw %d requests, want 3 (a 429, a 503, the answer)", got)
	}
	type retry struct {
		kind         events.ErrorKind
		status       int
		system       string
		attempt, nxt int
	}
	var got []retry
	for _, mr := range rec.ModelRetries() {
		got = append(got, retry{mr.ErrorKind, mr.HTTPStatus, mr.System, mr.Attempt, mr.NextAttempt})
	}
	want := []retry{{events.KindRateLimit, 429, system, 1, 2}, {events.KindOverloaded, 503, system, 2, 3}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("model retries recorded = %+v, want %+v", got, want)
	}
}

// EndlessShape is a stream that never ends: what it sends after its
// opening, again and again.
type EndlessShape struct {
	Name    string
	Opening []string
	Endless string
	// Tools offers the agent a tool, so that a client that streams
	// nothing with tools (langchaingo's) is tried too.
	Tools bool
}

// EndlessShapes are the shapes of an endless stream every integration
// must stop: chunks that add nothing (empty deltas, a role alone,
// reasoning a model never ends), and text without end, in pieces of
// 4 KiB, and 32 KiB with tools (langchaingo's client joins a reply's
// pieces by string concatenation, so small ones take it quadratic time
// to reach a bound).
var EndlessShapes = []EndlessShape{
	{Name: "empty deltas", Endless: Delta(`{}`, "")},
	{Name: "empty content", Endless: Delta(`{"content":""}`, "")},
	{Name: "a role again and again", Endless: Delta(`{"role":"assistant"}`, "")},
	{Name: "reasoning without end", Endless: Delta(`{"reasoning_content":"h"}`, "")},
	{Name: "text without end", Opening: []string{Content("{\"city\":\"")}, Endless: Content(strings.Repeat("a", 4<<10))},
	{Name: "empty deltas with tools offered", Endless: Delta(`{}`, ""), Tools: true},
	{Name: "text without end with tools offered", Endless: Content(strings.Repeat("a", 32<<10)), Tools: true},
}

// StopsEndless runs an agent over the model model makes of a server
// that streams sh without end: the run must fail (a bound of the agent's
// or the integration's), and the server must have sent fewer than
// MaxEndless events, its client gone. It returns the run's error.
func StopsEndless(t *testing.T, sh EndlessShape, model func(url string) agent.Model) error {
	t.Helper()
	srv := NewServer(t, Reply{Events: sh.Opening, Endless: sh.Endless})
	opts := []agent.Option{}
	if sh.Tools {
		tool := agent.NewTool("lookup", "Looks a city up.", func(context.Context, struct {
			City string `json:"city"`
		}) (string, error) {
			return "sunny", nil
		})
		opts = append(opts, agent.WithTools(tool))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := agent.New(model(srv.URL), opts...).Run(ctx, "Weather in Paris?")
	if err == nil {
		t.Fatal("an endless stream gave an answer")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an endless stream ran to the deadline: %v", err)
	}
	if n := srv.Sent(0); n >= MaxEndless {
		t.Errorf("the client read all %d events the server sent", n)
	}
	return err
}
