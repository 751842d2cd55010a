package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/middleware"
)

// Weather is the output contract of the examples and of most tests.
type Weather struct {
	City  string `json:"city"`
	TempC int    `json:"tempC"`
}

// cannedModel replies with msgs in order, then fails. A real program
// calls an LLM here; tests use agenttest.NewModel.
func cannedModel(msgs ...agent.Message) agent.Model {
	var mu sync.Mutex
	return agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(msgs) == 0 {
			return agent.Response{}, errors.New("no more canned replies")
		}
		m := msgs[0]
		msgs = msgs[1:]
		return agent.Response{Message: m, Usage: agent.Usage{InputTokens: 100, OutputTokens: 10}}, nil
	})
}

// fixedClock stops time, so that rows printed whole carry no latency
// that would differ between runs.
func fixedClock() time.Time { return time.Unix(1754590940, 0) }

func answer(text string) agent.Message {
	return agent.Message{Role: agent.RoleAssistant, Content: text}
}

// The model first answers in prose; the corrective turn gets JSON that
// decodes into Weather. The ledger shows both attempts.
func ExampleRunTyped() {
	model := cannedModel(
		answer("It is 21 degrees in Paris."),
		answer(`{"city":"Paris","tempC":21}`),
	)
	a := agent.New(model, agent.WithOutputRetries(2), agent.WithClock(fixedClock))

	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v after %d iterations, %d input tokens\n", w, res.Iterations, res.Usage.InputTokens)
	ledger, _ := json.MarshalIndent(res.Attempts, "", "  ")
	fmt.Println(string(ledger))
	// Output:
	// {City:Paris TempC:21} after 2 iterations, 200 input tokens
	// [
	//   {
	//     "attempt": 1,
	//     "iteration": 1,
	//     "outcome": "retried",
	//     "stage": "json-parse",
	//     "error": "line 1, column 1: unexpected character 'I': expected a value",
	//     "correctiveMessageHash": "1503b98b",
	//     "inputTokens": 100,
	//     "outputTokens": 10
	//   },
	//   {
	//     "attempt": 2,
	//     "iteration": 2,
	//     "outcome": "passed",
	//     "inputTokens": 100,
	//     "outputTokens": 10
	//   }
	// ]
}

// A tool with typed arguments: the model calls it, gets its result as a
// tool message, and answers.
func ExampleNewTool() {
	type cityArgs struct {
		City string `json:"city"`
	}
	lookup := agent.NewTool("lookup", "Current temperature of a city in °C.",
		func(ctx context.Context, in cityArgs) (string, error) {
			return "21", nil
		})
	model := cannedModel(
		agent.Message{ToolCalls: []agent.ToolCall{{ID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
		answer(`{"city":"Paris","tempC":21}`),
	)
	a := agent.New(model, agent.WithTools(lookup))

	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Messages[1:] { // after the system prompt
		switch {
		case len(m.ToolCalls) > 0:
			fmt.Printf("%s: calls %s(%s)\n", m.Role, m.ToolCalls[0].Name, m.ToolCalls[0].Arguments)
		case m.Role == agent.RoleTool:
			fmt.Printf("%s: %s answers %s\n", m.Role, m.ToolCallID, m.Content)
		default:
			fmt.Printf("%s: %s\n", m.Role, m.Content)
		}
	}
	fmt.Printf("%+v\n", w)
	// Output:
	// user: Weather in Paris?
	// assistant: calls lookup({"city":"Paris"})
	// tool: call-1 answers 21
	// assistant: {"city":"Paris","tempC":21}
	// {City:Paris TempC:21}
}

// A middleware that appends a signature breaks the model's valid answer.
// Asking the model again cannot fix that, so the run stops at once with
// an exhausted row naming the middleware, retries unspent.
func ExampleWithMiddleware() {
	sign := middleware.Middleware{
		Name: "signature",
		Output: func(ctx context.Context, s string) (string, error) {
			return s + "\n-- the weather bot", nil
		},
	}
	model := cannedModel(answer(`{"city":"Paris","tempC":21}`))
	a := agent.New(model, agent.WithOutputRetries(2), agent.WithMiddleware(sign), agent.WithClock(fixedClock))

	_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	var oe *enforce.OutputError
	if errors.As(err, &oe) {
		fmt.Println("broken by:", oe.BrokenBy, "| ErrBrokenBy:", errors.Is(err, enforce.ErrBrokenBy))
		fmt.Println("output:", strings.ReplaceAll(oe.Output, "\n", `\n`))
	}
	fmt.Println("model calls:", res.Iterations)
	row, _ := json.MarshalIndent(res.Attempts[0], "", "  ")
	fmt.Println(string(row))
	// Output:
	// broken by: signature | ErrBrokenBy: true
	// output: {"city":"Paris","tempC":21}\n-- the weather bot
	// model calls: 1
	// {
	//   "attempt": 1,
	//   "iteration": 1,
	//   "outcome": "exhausted",
	//   "stage": "json-parse",
	//   "error": "line 2, column 1: unexpected character '-' after the top-level value (the answer must be exactly one JSON value)",
	//   "brokenBy": "signature",
	//   "inputTokens": 100,
	//   "outputTokens": 10
	// }
}

// Run without a schema returns the model's final answer as text; with
// WithOutputSchema and no retries, a failing answer is an
// *enforce.OutputError and no rows are written.
func ExampleAgent_Run() {
	s, err := enforce.CompileSchema([]byte(`{"type":"object","required":["city"]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	a := agent.New(cannedModel(answer(`{"town":"Paris"}`)), agent.WithOutputSchema(s))
	res, err := a.Run(context.Background(), "Where is the Louvre?")
	var oe *enforce.OutputError
	if errors.As(err, &oe) {
		fmt.Printf("stage %s, path %s, no rows: %v\n", oe.Stage, oe.Path, res.Attempts == nil)
	}
	// Output: stage schema-validate, path /city, no rows: true
}

// A model failing with a rate limit is retried under the policy; the
// retry is recorded before the wait (here zero) as
// turn/modelRetryScheduled.
func ExampleWithModelRetry() {
	calls := 0
	model := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		calls++
		if calls == 1 {
			return agent.Response{}, &agent.ProviderError{System: "openai", Kind: "rate_limit", HTTPStatus: 429}
		}
		return agent.Response{Message: answer("done")}, nil
	})
	a := agent.New(model, agent.WithModelRetry(agent.RetryPolicy{
		MaxAttempts: 3,
		Backoff:     func(int, error) time.Duration { return 0 }, // no wait in an example
	}))
	res, err := a.Run(context.Background(), "hi")
	fmt.Println(res.Output, err, calls)
	// Output: done <nil> 2
}

// stoppedModel replies with each response in order: a Model reports why a
// reply ended in Response.Stop, as the provider adapters do.
func stoppedModel(resps ...agent.Response) agent.Model {
	var mu sync.Mutex
	return agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		r := resps[0]
		resps = resps[1:]
		return r, nil
	})
}

// An answer truncated at the output limit is judged and corrected like any
// other, but its row says truncated and the corrective turn asks for a
// shorter answer; a second cut in a row would end the run at once.
func ExampleStopReason() {
	model := stoppedModel(
		agent.Response{Message: answer(`{"city":"Par`), Stop: agent.StopLength, StopRaw: "max_tokens"},
		agent.Response{Message: answer(`{"city":"Paris","tempC":21}`), Stop: agent.StopComplete, StopRaw: "end_turn"},
	)
	a := agent.New(model, agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", w)
	for _, r := range res.Attempts {
		fmt.Println(r.Attempt, r.Outcome, r.Stage, r.Truncated)
	}
	// Output:
	// {City:Paris TempC:21}
	// 1 retried json-parse true
	// 2 passed  false
}

// A refusal is not a malformed answer: nothing is judged, no retry is
// spent, and the run returns the provider's text as data.
func ExampleRefusalError() {
	model := stoppedModel(agent.Response{
		Message: answer("I can't help with that."), Stop: agent.StopRefusal, StopRaw: "refusal",
	})
	a := agent.New(model, agent.WithOutputRetries(2), agent.WithClock(fixedClock))
	_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	var re *agent.RefusalError
	if errors.As(err, &re) {
		fmt.Printf("%v; text %q\n", err, re.Text)
	}
	row, _ := json.Marshal(res.Attempts[0])
	fmt.Println(string(row))
	// Output:
	// agent: the model refused to answer; text "I can't help with that."
	// {"attempt":1,"iteration":1,"outcome":"exhausted","withheld":"refusal"}
}
