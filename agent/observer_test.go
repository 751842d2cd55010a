package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/hashicorp/go-hclog"
)

type spanKey struct{}

// logObserver writes each call it gets as a line, and puts the name of
// what it observes in the context each Start func returns.
type logObserver struct {
	mu    sync.Mutex
	lines []string
}

func (l *logObserver) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logObserver) observer() agent.Observer {
	return agent.Observer{
		RunStart: func(ctx context.Context, turn, input string) context.Context {
			l.add("run start %s %q", turn, input)
			return context.WithValue(ctx, spanKey{}, "run")
		},
		RunEnd: func(ctx context.Context, res *agent.Result, err error) {
			l.add("run end in %v: %d rows, err %v", ctx.Value(spanKey{}), len(res.Attempts), err)
		},
		ModelStart: func(ctx context.Context, req agent.Request) context.Context {
			l.add("model start in %v: %d messages", ctx.Value(spanKey{}), len(req.Messages))
			return context.WithValue(ctx, spanKey{}, "model")
		},
		ModelEnd: func(ctx context.Context, c agent.ModelCall) {
			l.add("model end in %v: %q err %v streamed %v cut %v", ctx.Value(spanKey{}), c.Response.Message.Content, c.Err, c.Streamed, c.Cut != nil)
		},
		ToolStart: func(ctx context.Context, c agent.ToolCall) context.Context {
			l.add("tool start in %v: %s %s", ctx.Value(spanKey{}), c.Name, c.ID)
			return context.WithValue(ctx, spanKey{}, "tool")
		},
		ToolEnd: func(ctx context.Context, c agent.ToolCall, result string, err error) {
			l.add("tool end in %v: %s %q err %v", ctx.Value(spanKey{}), c.ID, result, err)
		},
		Attempt: func(ctx context.Context, row enforce.Attempt) {
			l.add("attempt in %v: %d %s %s", ctx.Value(spanKey{}), row.Attempt, row.Outcome, row.Stage)
		},
		Retry: func(ctx context.Context, r agent.Retry) {
			l.add("retry in %v: %s %d/%d after %v: %s", ctx.Value(spanKey{}), r.Kind, r.Attempt, r.MaxAttempts, r.Delay, r.Reason)
		},
	}
}

func TestObserverSeesEachCallInOrderUnderItsOwnContext(t *testing.T) {
	var sawModel, sawTool []any
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{}`)),
		agenttest.Reply(prose), agenttest.Reply(valid))
	model := agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		sawModel = append(sawModel, ctx.Value(spanKey{}))
		return m.Generate(ctx, req)
	})
	lookup := agent.Tool{Name: "lookup", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
		sawTool = append(sawTool, ctx.Value(spanKey{}))
		return "21C", nil
	}}
	var l logObserver
	a := agent.New(model, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithTools(lookup), agent.WithObserver(l.observer()))

	if _, err := a.Run(agent.ContextWithTurnID(t.Context(), "t1"), "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`run start t1 "Weather in Paris?"`,
		`model start in run: 2 messages`,
		`model end in model: "" err <nil> streamed false cut false`,
		`tool start in run: lookup c1`,
		`tool end in tool: c1 "21C" err <nil>`,
		`model start in run: 4 messages`,
		`model end in model: "Sure! It is 21 degrees in Paris." err <nil> streamed false cut false`,
		`attempt in run: 1 retried json-parse`,
		`model start in run: 6 messages`,
		`model end in model: "{\"city\":\"Paris\",\"tempC\":21}" err <nil> streamed false cut false`,
		`attempt in run: 2 passed `,
		`run end in run: 2 rows, err <nil>`,
	}
	if !slices.Equal(l.lines, want) {
		t.Errorf("the observer saw:\n%s\nwant:\n%s", strings.Join(l.lines, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(sawModel, []any{"model", "model", "model"}) || !slices.Equal(sawTool, []any{"tool"}) {
		t.Errorf("the model ran under %v, the tool under %v; want the contexts ModelStart and ToolStart gave", sawModel, sawTool)
	}
}

func TestObserverSeesRetriesFailuresAndCuts(t *testing.T) {
	limited := &agent.ProviderError{Kind: events.KindRateLimit, HTTPStatus: 429, RetryAfter: time.Second, Message: "slow down"}
	down := &agent.ProviderError{Kind: events.KindServerError, HTTPStatus: 503}
	m := agenttest.NewStreamingModel(t,
		agenttest.Fail(limited), agenttest.Fail(down),
		agenttest.Reply(`{"city":"Paris","tempC":"warm"}`).InChunks(8), agenttest.Reply(valid))
	zero := func(int, error) time.Duration { return 0 }
	var l logObserver
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithModelRetry(agent.RetryPolicy{MaxAttempts: 1}), // no model retries: the turn retries
		agent.WithTurnRetry(agent.RetryPolicy{MaxAttempts: 3, Backoff: zero}), agent.WithObserver(l.observer()))

	if _, err := a.Run(t.Context(), "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(l.lines[1:], "\n")
	want := strings.Join([]string{
		`model start in run: 2 messages`,
		`model end in model: "" err agent: provider: rate_limit (HTTP 429): slow down streamed true cut false`,
		`retry in run: turn 1/3 after 0s: model call failed: rate_limit (HTTP 429)`,
		`model start in run: 2 messages`,
		`model end in model: "" err agent: provider: server_error (HTTP 503) streamed true cut false`,
		`retry in run: turn 2/3 after 0s: model call failed: server_error (HTTP 503)`,
		`model start in run: 2 messages`,
		`model end in model: "{\"city\":\"Paris\",\"tempC\":\"" err <nil> streamed true cut true`,
		`attempt in run: 1 retried schema-validate`,
		`model start in run: 4 messages`,
		`model end in model: "{\"city\":\"Paris\",\"tempC\":21}" err <nil> streamed true cut false`,
		`attempt in run: 2 passed `,
		`run end in run: 2 rows, err <nil>`,
	}, "\n")
	if got != want {
		t.Errorf("the observer saw:\n%s\nwant:\n%s", got, want)
	}
}

func TestObserverSeesModelRetries(t *testing.T) {
	limited := &agent.ProviderError{Kind: events.KindRateLimit, HTTPStatus: 429, RetryAfter: time.Second}
	m := agenttest.NewModel(t, agenttest.Fail(limited), agenttest.Reply(valid))
	var got []agent.Retry
	obs := agent.Observer{Retry: func(_ context.Context, r agent.Retry) { got = append(got, r) }}
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)),
		agent.WithModelRetry(agent.RetryPolicy{Backoff: func(int, error) time.Duration { return 0 }}), agent.WithObserver(obs))

	if _, err := a.Run(t.Context(), "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Kind != events.RetryModel || got[0].Attempt != 1 || got[0].MaxAttempts != 3 ||
		got[0].Reason != "model call failed: rate_limit (HTTP 429)" || !errors.Is(got[0].Err, limited) {
		t.Errorf("retries %+v, want one model retry of the rate limit", got)
	}
}

func TestPanickingObserverDoesNotStopTheRun(t *testing.T) {
	// A Start that panicked is not ended (see TestAStartThatPanickedIsNotEnded):
	// the Ends' panics are seen in a run whose Starts do not panic.
	for _, startsPanic := range []bool{true, false} {
		var buf bytes.Buffer
		logger := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Error})
		boom := func() { panic("observer bug") }
		start := func(ctx context.Context) context.Context {
			if startsPanic {
				boom()
			}
			return ctx
		}
		obs := agent.Observer{
			RunStart:   func(ctx context.Context, _, _ string) context.Context { return start(ctx) },
			RunEnd:     func(context.Context, *agent.Result, error) { boom() },
			ModelStart: func(ctx context.Context, _ agent.Request) context.Context { return start(ctx) },
			ModelEnd:   func(context.Context, agent.ModelCall) { boom() },
			ToolStart:  func(ctx context.Context, _ agent.ToolCall) context.Context { return start(ctx) },
			ToolEnd:    func(context.Context, agent.ToolCall, string, error) { boom() },
			Attempt:    func(context.Context, enforce.Attempt) { boom() },
			Retry:      func(context.Context, agent.Retry) { boom() },
		}
		m := agenttest.NewModel(t,
			agenttest.Fail(&agent.ProviderError{Kind: events.KindOverloaded, HTTPStatus: 529}),
			agenttest.CallTools(agenttest.Call("c1", "lookup", `{}`)),
			agenttest.Reply(prose), agenttest.Reply(valid))
		lookup := agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "21C", nil }}
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithTools(lookup),
			agent.WithModelRetry(agent.RetryPolicy{Backoff: func(int, error) time.Duration { return 0 }}),
			agent.WithObserver(obs), agent.WithLogger(logger))

		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil || res.Output != valid || len(res.Attempts) != 2 {
			t.Fatalf("Run = %v, %v; want the valid answer on the second row", res, err)
		}
		panicked := []string{"RunEnd", "ModelEnd", "ToolEnd", "Attempt", "Retry"}
		if startsPanic {
			panicked = []string{"RunStart", "ModelStart", "ToolStart", "Attempt", "Retry"}
		}
		for _, call := range panicked {
			if !strings.Contains(buf.String(), "call="+call) {
				t.Errorf("no panic of %s logged:\n%s", call, buf.String())
			}
		}
	}
}

func TestObserverSeesAModelPanicAsAnError(t *testing.T) {
	var ends []agent.ModelCall
	obs := agent.Observer{ModelEnd: func(_ context.Context, c agent.ModelCall) { ends = append(ends, c) }}
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) { panic("model bug") })
	a := agent.New(m, agent.WithObserver(obs))

	if _, err := a.Run(t.Context(), "hi"); !errors.Is(err, agent.ErrModel) {
		t.Fatalf("err = %v, want ErrModel", err)
	}
	if len(ends) != 1 || ends[0].Err == nil || !strings.Contains(ends[0].Err.Error(), "model bug") {
		t.Errorf("ModelEnd got %+v, want the panic as its error", ends)
	}
}

func TestObserverSeesARunRefusedBeforeItStarts(t *testing.T) {
	type other struct {
		Name string `json:"name"`
	}
	m := agenttest.NewModel(t) // never called
	var l logObserver
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithObserver(l.observer()))

	_, res, err := agent.RunTyped[other](agent.ContextWithTurnID(t.Context(), "t1"), a, "Weather in Paris?")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Fatalf("err = %v, want ErrInvalidOption", err)
	}
	want := []string{
		`run start t1 "Weather in Paris?"`,
		fmt.Sprintf("run end in run: 0 rows, err %v", err),
	}
	if !slices.Equal(l.lines, want) {
		t.Errorf("the observer saw:\n%s\nwant:\n%s", strings.Join(l.lines, "\n"), strings.Join(want, "\n"))
	}
	if res == nil || res.TurnID != "t1" {
		t.Errorf("res = %+v, want the turn ID t1", res)
	}
}
