package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/middleware"
)

type lookupArgs struct {
	City string `json:"city"`
}

func TestToolRoundTrip(t *testing.T) {
	var got []lookupArgs
	tool := agent.NewTool("lookup", "Looks up the weather of a city.", func(_ context.Context, in lookupArgs) (string, error) {
		got = append(got, in)
		return `{"tempC":21}`, nil
	})
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{"city":"Paris"}`)),
		agenttest.Reply(valid),
	)
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithTools(tool))

	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("the tool gets its typed arguments", func(t *testing.T) {
		if want := []lookupArgs{{City: "Paris"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("tool arguments = %+v, want %+v", got, want)
		}
	})

	reqs := m.Requests()
	t.Run("every request describes the tool with its parameters schema", func(t *testing.T) {
		params, err := enforce.SchemaFor[lookupArgs]()
		if err != nil {
			t.Fatal(err)
		}
		want := []agent.ToolSpec{{Name: "lookup", Description: "Looks up the weather of a city.", Parameters: json.RawMessage(sent(t, params.JSON()))}}
		for i, r := range reqs {
			if !reflect.DeepEqual(r.Tools, want) {
				t.Errorf("request %d Tools = %s, want %s", i+1, specs(r.Tools), specs(want))
			}
		}
	})

	t.Run("the result goes back as a tool message answering the call", func(t *testing.T) {
		msgs := reqs[1].Messages
		last := msgs[len(msgs)-1]
		if want := (agent.Message{Role: agent.RoleTool, Content: `{"tempC":21}`, ToolCallID: "c1"}); !reflect.DeepEqual(last, want) {
			t.Errorf("last message = %+v, want %+v", last, want)
		}
		if got, want := res.Iterations, 2; got != want {
			t.Errorf("Iterations = %d, want %d", got, want)
		}
	})
}

func specs(ts []agent.ToolSpec) string {
	b, _ := json.Marshal(ts)
	return string(b)
}

func TestToolCallWithoutIDGetsOne(t *testing.T) {
	tool := agent.NewTool("noop", "", func(context.Context, struct{}) (string, error) { return "ok", nil })
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("", "noop", `{}`), agenttest.Call("", "noop", `{}`)),
		agenttest.Reply("done"),
	)
	res, err := agent.New(m, agent.WithTools(tool)).Run(t.Context(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	// system-less conversation: user, assistant (2 calls), tool, tool, assistant
	calls := res.Messages[1].ToolCalls
	seen := map[string]bool{}
	for i, c := range calls {
		if c.ID == "" || seen[c.ID] {
			t.Errorf("call %d has ID %q, want a unique non-empty ID", i, c.ID)
		}
		seen[c.ID] = true
		if got, want := res.Messages[2+i].ToolCallID, c.ID; got != want {
			t.Errorf("tool message %d answers %q, want %q", i, got, want)
		}
	}
}

func TestToolFailuresGoBackToTheModel(t *testing.T) {
	called := false
	typed := agent.NewTool("lookup", "", func(_ context.Context, in lookupArgs) (string, error) {
		called = true
		return "sunny", nil
	})
	failing := agent.NewTool("failing", "", func(context.Context, struct{}) (string, error) {
		return "", errors.New("upstream down")
	})
	panicking := agent.NewTool("panicking", "", func(context.Context, struct{}) (string, error) {
		panic("index out of range")
	})
	raw := agent.Tool{Name: "raw", Run: func(context.Context, json.RawMessage) (string, error) {
		called = true
		return "ok", nil
	}}

	tests := []struct {
		name string
		call agent.ToolCall
	}{
		{"an unknown tool is answered with an error", agenttest.Call("c1", "forecast", `{"city":"Paris"}`)},
		{"arguments that break the schema are answered with an error", agenttest.Call("c1", "lookup", `{"city":3}`)},
		{"arguments with an extra member are answered with an error", agenttest.Call("c1", "lookup", `{"city":"Paris","when":"now"}`)},
		{"arguments that are not JSON are answered with an error", agenttest.Call("c1", "raw", `{city:`)},
		{"a tool error is answered with an error", agenttest.Call("c1", "failing", `{}`)},
		{"a tool panic is answered with an error", agenttest.Call("c1", "panicking", `{}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called = false
			m := agenttest.NewModel(t, agenttest.CallTools(tt.call), agenttest.Reply(valid))
			a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)),
				agent.WithTools(typed, failing, panicking, raw))

			res, err := a.Run(t.Context(), "Weather in Paris?")
			if err != nil {
				t.Fatalf("the run did not go on to its final answer: %v", err)
			}
			if got, want := res.Output, valid; got != want {
				t.Errorf("Output = %q, want %q", got, want)
			}
			msgs := m.Requests()[1].Messages
			last := msgs[len(msgs)-1]
			if last.Role != agent.RoleTool || last.ToolCallID != "c1" || !strings.HasPrefix(last.Content, "error:") {
				t.Errorf("last message = %+v, want a tool message for c1 starting with \"error:\"", last)
			}
			if called {
				t.Error("the tool ran with arguments it cannot take")
			}
		})
	}
}

func TestParallelToolsKeepResultOrder(t *testing.T) {
	// Call i finishes only after call i+1 has, so they finish in reverse
	// order, and only when they run at once. The deadline stops the run,
	// rather than the test binary, if they do not.
	const n = 4
	done := make([]chan struct{}, n+1)
	for i := range done {
		done[i] = make(chan struct{})
	}
	close(done[n])
	type arg struct {
		I int `json:"i"`
	}
	tool := agent.NewTool("step", "", func(ctx context.Context, in arg) (string, error) {
		select {
		case <-done[in.I+1]:
		case <-ctx.Done():
			return "", context.Cause(ctx)
		}
		close(done[in.I])
		return fmt.Sprintf("result %d", in.I), nil
	})
	var calls []agent.ToolCall
	for i := range n {
		calls = append(calls, agenttest.Call(fmt.Sprintf("c%d", i), "step", fmt.Sprintf(`{"i":%d}`, i)))
	}
	m := agenttest.NewModel(t, agenttest.CallTools(calls...), agenttest.Reply("done"))
	a := agent.New(m, agent.WithTools(tool), agent.WithParallelTools(0))

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := a.Run(ctx, "hi")
	if err != nil {
		t.Fatal(err)
	}
	var got []agent.Message
	for _, msg := range res.Messages {
		if msg.Role == agent.RoleTool {
			got = append(got, msg)
		}
	}
	var want []agent.Message
	for i := range n {
		want = append(want, agent.Message{Role: agent.RoleTool, Content: fmt.Sprintf("result %d", i), ToolCallID: fmt.Sprintf("c%d", i)})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tool messages = %+v, want %+v", got, want)
	}
}

func TestMaxIterations(t *testing.T) {
	tool := agent.NewTool("noop", "", func(context.Context, struct{}) (string, error) { return "ok", nil })
	var steps []agenttest.Step
	for range 3 {
		steps = append(steps, agenttest.CallTools(agenttest.Call("", "noop", `{}`)))
	}
	m := agenttest.NewModel(t, steps...)
	a := agent.New(m, agent.WithTools(tool), agent.WithMaxIterations(3))

	res, err := a.Run(t.Context(), "hi")

	if !errors.Is(err, agent.ErrMaxIterations) {
		t.Errorf("err = %v, want one matching ErrMaxIterations", err)
	}
	if got, want := res.Iterations, 3; got != want {
		t.Errorf("Iterations = %d, want %d", got, want)
	}
	if got, want := m.Calls(), 3; got != want {
		t.Errorf("model calls = %d, want %d", got, want)
	}
}

func TestToolCallIDsAreAssignedOnACopyOfTheModelsReply(t *testing.T) {
	shared := agent.Response{Message: agent.Message{Role: agent.RoleAssistant,
		ToolCalls: []agent.ToolCall{{Name: "echo", Arguments: []byte(`{}`)}}}}
	echo := agent.Tool{Name: "echo", Run: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}
	m := agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		if len(req.Messages) < 5 {
			return shared, nil // the same reply value, twice per run
		}
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "done"}}, nil
	})
	a := agent.New(m, agent.WithTools(echo))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := a.Run(context.Background(), "hi")
			if err != nil {
				t.Error(err)
				return
			}
			seen := map[string]bool{}
			for _, msg := range res.Messages {
				for _, c := range msg.ToolCalls {
					if seen[c.ID] {
						t.Errorf("tool call ID %q used twice in one conversation", c.ID)
					}
					seen[c.ID] = true
				}
			}
		}()
	}
	wg.Wait()
	if id := shared.Message.ToolCalls[0].ID; id != "" {
		t.Errorf("the model's own reply was changed: ID = %q", id)
	}
}

func TestParallelToolsRunAtMostTheCapAtOnce(t *testing.T) {
	tests := []struct {
		name  string
		n     int // WithParallelTools(n)
		calls int
		want  int // tools inside at once, at most
	}{
		{"a cap of 3 over 20 calls", 3, 20, 3},
		{"the default cap of 16 over 40 calls", 0, 40, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var running, peak atomic.Int64
			entered := make(chan struct{})
			release := make(chan struct{})
			tool := agent.Tool{Name: "slow", Run: func(context.Context, json.RawMessage) (string, error) {
				r := running.Add(1)
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
				entered <- struct{}{}
				<-release
				running.Add(-1)
				return "ok", nil
			}}
			var calls []agent.ToolCall
			for range tt.calls {
				calls = append(calls, agenttest.Call("", "slow", `{}`))
			}
			m := agenttest.NewModel(t, agenttest.CallTools(calls...), agenttest.Reply("done"))
			a := agent.New(m, agent.WithTools(tool), agent.WithParallelTools(tt.n))
			done := make(chan error, 1)
			go func() {
				_, err := a.Run(t.Context(), "hi")
				done <- err
			}()
			// Release one call only while the cap's worth are inside, so that
			// any call past the cap would be inside too, and counted.
			for range tt.want {
				<-entered
			}
			for range tt.calls - tt.want {
				release <- struct{}{}
				<-entered
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if got, want := int(peak.Load()), tt.want; got != want {
				t.Errorf("at most %d tools ran at once, want %d", got, want)
			}
		})
	}
}

func TestRunReturnsOnCancelWithoutWaitingForCodeThatIgnoresCtx(t *testing.T) {
	tests := []struct {
		name  string
		steps []agenttest.Step
		opts  func(block func()) []agent.Option
	}{
		{"a tool", []agenttest.Step{agenttest.CallTools(agenttest.Call("", "stuck", `{}`))},
			func(block func()) []agent.Option {
				return []agent.Option{agent.WithTools(agent.Tool{Name: "stuck",
					Run: func(context.Context, json.RawMessage) (string, error) { block(); return "", nil }})}
			}},
		{"a parallel tool", []agenttest.Step{agenttest.CallTools(agenttest.Call("", "stuck", `{}`), agenttest.Call("", "stuck", `{}`))},
			func(block func()) []agent.Option {
				return []agent.Option{agent.WithParallelTools(0), agent.WithTools(agent.Tool{Name: "stuck",
					Run: func(context.Context, json.RawMessage) (string, error) { block(); return "", nil }})}
			}},
		{"an input middleware", nil,
			func(block func()) []agent.Option {
				return []agent.Option{agent.WithMiddleware(middleware.Middleware{Name: "stuck",
					Input: func(context.Context, string) (string, error) { block(); return "", nil }})}
			}},
		{"an output middleware", []agenttest.Step{agenttest.Reply("ok")},
			func(block func()) []agent.Option {
				return []agent.Option{agent.WithMiddleware(middleware.Middleware{Name: "stuck",
					Output: func(context.Context, string) (string, error) { block(); return "", nil }})}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			never := make(chan struct{})
			t.Cleanup(func() { close(never) }) // lets the abandoned code end
			entered := make(chan struct{}, 2)
			block := func() { entered <- struct{}{}; <-never }
			m := agenttest.NewModel(t, tt.steps...)
			a := agent.New(m, tt.opts(block)...)
			cause := errors.New("user hit stop")
			ctx, cancel := context.WithCancelCause(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := a.Run(ctx, "hi")
				done <- err
			}()
			<-entered
			cancel(cause)
			if err := <-done; !errors.Is(err, cause) {
				t.Errorf("err = %v, want the cause", err)
			}
		})
	}
}
