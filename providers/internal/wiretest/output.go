package wiretest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// The scenarios below run the agent with an output tool
// (agent.WithOutputTool("final_result")): the answer is the arguments of
// a call of final_result, its parameters the contract.

// outputToolAgent is an agent over m whose answer is a call of
// final_result, with one output retry.
func outputToolAgent(m agent.Model, opts ...agent.Option) *agent.Agent {
	return agent.New(m, append([]agent.Option{agent.WithOutputTool("final_result"), agent.WithOutputRetries(1)}, opts...)...)
}

// result checks that m is the result of call id alone, naming
// final_result where the provider names results, and returns its output.
func (a Adapter) result(t *testing.T, m Message, id string) string {
	t.Helper()
	r := m.Result(t)
	if r.ID != id || (a.NamesResults && r.Name != "final_result") {
		t.Errorf("result = %+v, want final_result's, for call %q", r, id)
	}
	return r.Text
}

// OutputToolThroughTheWire checks a run whose answer is a call of the
// output tool: the first request requires a call, sends no native
// output format and declares final_result alone, its parameters
// Weather's schema; the first call (first, its wire ID id, its
// arguments missing tempC, its usage 30 in and 8 out) fails at
// schema-validate on /tempC, and the correction goes back as that call's
// result; the run passes on the second call (second).
func OutputToolThroughTheWire(t *testing.T, a Adapter, first, second Reply, id string) {
	srv := a.Server(t, first, second)
	// Early abort off: each reply is read whole, its usage included (a
	// required member missing now cuts at the object's close).
	ag := outputToolAgent(a.Model(t, srv), agent.WithEarlyAbort(false))
	w, res, err := agent.RunTyped[Weather](context.Background(), ag, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if w != paris {
		t.Errorf("answer = %+v, want %+v (the second call's arguments)", w, paris)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Stage != enforce.StageSchemaValidate || res.Attempts[0].Path != "/tempC" {
		t.Fatalf("rows = %+v, want the first call's arguments failing at /tempC, then a pass", res.Attempts)
	}
	if got, want := res.Attempts[0].Cost, (enforce.Cost{InputTokens: 30, OutputTokens: 8, LatencyMs: res.Attempts[0].LatencyMs}); got != want {
		t.Errorf("row 1 cost = %+v, want the call's usage %+v", got, want)
	}

	sent := a.Sent(t, srv, 0)
	if !sent.CallRequired {
		t.Errorf("tool choice = %s, want one that requires a call", sent.ToolChoice)
	}
	if sent.Format != nil {
		t.Errorf("output format = %s, want none: the schema is the tool's parameters", sent.Format)
	}
	if len(sent.Tools) != 1 || sent.Tools[0].Name != "final_result" {
		t.Fatalf("tools = %+v, want final_result alone", sent.Tools)
	}
	var params struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(sent.Tools[0].Schema, &params); err != nil {
		t.Fatal(err)
	}
	if params.Type != "object" || params.Properties["city"] == nil || params.Properties["tempC"] == nil || strings.Join(params.Required, ",") != "city,tempC" {
		t.Errorf("parameters = %s, want Weather's schema inlined at the root", sent.Tools[0].Schema)
	}

	// The correction is the result of the failed call.
	next := a.Sent(t, srv, 1)
	n := len(next.Messages)
	if n < 2 || next.Messages[n-2].Role != "assistant" {
		t.Fatalf("second request = %v, want the call, then its result", next.Shape())
	}
	if c := next.Messages[n-2].Only(t, "call"); c.ID != id || c.Name != "final_result" {
		t.Errorf("second request's call = %+v, want the first call, %q", c, id)
	}
	if text := a.result(t, next.Messages[n-1], id); !strings.Contains(text, `Call the tool "final_result"`) || !strings.Contains(text, `"/tempC"`) {
		t.Errorf("correction = %q, want the call's result naming /tempC", text)
	}
}

// OutputToolProse checks that a reply in prose (prose, its text said)
// instead of a call of the output tool fails at json-parse, and that its
// correction is a user message asking for the call; the run passes on
// call.
func OutputToolProse(t *testing.T, a Adapter, prose Reply, said string, call Reply) {
	srv := a.Server(t, prose, call)
	w, res, err := agent.RunTyped[Weather](context.Background(), outputToolAgent(a.Model(t, srv)), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if w != paris {
		t.Errorf("answer = %+v, want %+v (the call's arguments)", w, paris)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried || res.Attempts[0].Stage != enforce.StageJSONParse ||
		!strings.Contains(res.Attempts[0].Error, `not a call to the tool "final_result"`) || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Errorf("rows = %+v, want the prose retried at json-parse as no call of the tool, then a pass", res.Attempts)
	}
	next := a.Sent(t, srv, 1)
	n := len(next.Messages)
	if n < 2 || next.Messages[n-2].Role != "assistant" || next.Messages[n-1].Role != "user" {
		t.Fatalf("second request = %v, want it to end with the assistant's, then the user's", next.Shape())
	}
	if got := next.Messages[n-2].Only(t, "text").Text; got != said {
		t.Errorf("second request's assistant message = %q, want the prose reply %q", got, said)
	}
	if text := next.Messages[n-1].Only(t, "text").Text; !strings.Contains(text, `Call the tool "final_result"`) ||
		!strings.HasSuffix(text, `not a call to the tool \"final_result\""`) {
		t.Errorf("correction = %q, want a user message asking for the call and ending with the issue", text)
	}
}

// OutputToolCut checks that the agent cuts a doomed call of the output
// tool off mid-stream: the server sends opening, a call of final_result
// (its wire ID id) whose arguments give city a number, and holds the
// reply open until the client goes. The row fails /city at
// schema-validate, cut after `{"city":42,`; the corrective turn goes out
// as the call (its arguments sentArgs, the cut ones as the provider
// takes them) and its result saying the answer was stopped at /city. The
// run passes on call. It returns the run's result.
func OutputToolCut(t *testing.T, a Adapter, opening []string, call Reply, id, sentArgs string) *agent.Result {
	gone := make(chan struct{})
	srv := a.Server(t, Reply{Status: 200, Gone: gone, Events: opening}, call)
	w, res, err := agent.RunTyped[Weather](context.Background(), outputToolAgent(a.Model(t, srv)), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	WaitGone(t, gone)
	if w != paris {
		t.Errorf("answer = %+v, want %+v", w, paris)
	}
	if len(res.Attempts) != 2 || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Fatalf("rows = %+v, want a cut row, then a pass", res.Attempts)
	}
	row := res.Attempts[0]
	if row.Outcome != enforce.OutcomeRetried || row.Stage != enforce.StageSchemaValidate || row.Path != "/city" ||
		row.Cut == nil || row.Cut.Bytes != len(`{"city":42,`) {
		t.Fatalf("first row = %+v, want /city failing at schema-validate, cut after %d bytes", row, len(`{"city":42,`))
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("server saw %d requests, want 2", n)
	}
	next := a.Sent(t, srv, 1)
	msgs := next.Conversation()
	if len(msgs) != 3 || msgs[0].Role != "user" || msgs[1].Role != "assistant" {
		t.Fatalf("second request = %v, want the user's turn, the cut call, its result", next.Shape())
	}
	msgs[0].Only(t, "text")
	if c := msgs[1].Only(t, "call"); c.ID != id || c.Name != "final_result" || c.Args != sentArgs {
		t.Errorf("the cut call went back as %+v, want %q with arguments %s", c, id, sentArgs)
	}
	if text := a.result(t, msgs[2], id); !strings.Contains(text, "stopped reading your previous answer") || !strings.Contains(text, `"/city"`) {
		t.Errorf("correction = %q, want the call's result saying the answer was stopped at /city", text)
	}
	return res
}

// RequireToolCallOnlyWithTools checks that a request that requires a
// tool call (agent.Request.RequireToolCall, as WithOutputTool sends)
// requires one on the wire when it has tools, and sends no tool choice
// when it has none. answer is a reply body for each.
func RequireToolCallOnlyWithTools(t *testing.T, a Adapter, answer string) {
	tool := agent.ToolSpec{Name: "answer", Parameters: json.RawMessage(`{"type":"object"}`)}
	for _, tt := range []struct {
		name  string
		tools []agent.ToolSpec
	}{
		{"with tools, a call is required", []agent.ToolSpec{tool}},
		{"without tools, no tool choice", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := a.Server(t, OK(answer))
			req := Turn
			req.Tools, req.RequireToolCall = tt.tools, true
			if _, err := a.Model(t, srv).Generate(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			sent := a.Sent(t, srv, 0)
			switch {
			case tt.tools != nil && !sent.CallRequired:
				t.Errorf("tool choice = %s, want one that requires a call", sent.ToolChoice)
			case tt.tools == nil && sent.ToolChoice != nil:
				t.Errorf("tool choice = %s, want none for a request without tools", sent.ToolChoice)
			}
		})
	}
}
