package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// toolCall is a 200 body whose reply is one call of name with args.
func toolCall(id, name, args string) string {
	a, _ := json.Marshal(args)
	return `{"id":"chatcmpl-4","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",
"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"` + name + `","arguments":` + string(a) + `}}]}}],
"usage":{"prompt_tokens":30,"completion_tokens":8,"total_tokens":38}}`
}

func TestAgentOutputToolThroughTheWire(t *testing.T) {
	srv := newFakeServer(t,
		okReply(toolCall("call_1", "final_result", `{"city":"Paris"}`)), // tempC missing
		okReply(toolCall("call_2", "final_result", `{"city":"Paris","tempC":18}`)),
	)
	a := agent.New(New(srv.client(), "gpt-4o-mini"), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1),
		agent.WithEarlyAbort(false)) // read each reply whole, its usage included (a required member missing now cuts at the object's close)
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v (the second call's arguments)", got, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Stage != enforce.StageSchemaValidate || res.Attempts[0].Path != "/tempC" {
		t.Errorf("rows = %+v, want the first call's arguments failing at /tempC, then a pass", res.Attempts)
	}
	if got, want := res.Attempts[0].Cost, (enforce.Cost{InputTokens: 30, OutputTokens: 8, LatencyMs: res.Attempts[0].LatencyMs}); got != want {
		t.Errorf("row 1 cost = %+v, want the call's usage %+v", got, want)
	}

	first, keys := decodeRequest(t, srv.requests()[0])
	if got, want := string(keys["tool_choice"]), `"required"`; got != want {
		t.Errorf("tool_choice = %s, want %s", got, want)
	}
	if first.ResponseFormat != nil {
		t.Errorf("response_format = %+v, want none: the schema is the tool's parameters", first.ResponseFormat)
	}
	if len(first.Tools) != 1 || first.Tools[0].Function.Name != "final_result" {
		t.Fatalf("tools = %+v, want final_result alone", first.Tools)
	}
	var params struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(first.Tools[0].Function.Parameters, &params); err != nil {
		t.Fatal(err)
	}
	if params.Type != "object" || params.Properties["city"] == nil || params.Properties["tempC"] == nil || strings.Join(params.Required, ",") != "city,tempC" {
		t.Errorf("parameters = %s, want Weather's schema", first.Tools[0].Function.Parameters)
	}

	// The correction is the result of the failed call.
	second, _ := decodeRequest(t, srv.requests()[1])
	n := len(second.Messages)
	asked, corr := second.Messages[n-2], second.Messages[n-1]
	if asked.Role != "assistant" || len(asked.ToolCalls) != 1 || asked.ToolCalls[0].ID != "call_1" {
		t.Errorf("second request's assistant message = %+v, want the call_1 reply", asked)
	}
	var text string
	json.Unmarshal(corr.Content, &text)
	if corr.Role != "tool" || corr.ToolCallID != "call_1" || !strings.Contains(text, `Call the tool "final_result"`) || !strings.Contains(text, `"/tempC"`) {
		t.Errorf("correction = role %s, id %s, %q; want call_1's tool result naming /tempC", corr.Role, corr.ToolCallID, text)
	}
}

func TestRequireToolCallSendsToolChoiceOnlyWithTools(t *testing.T) {
	srv := newFakeServer(t, okReply(plainCompletion))
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, RequireToolCall: true}
	if _, err := New(srv.client(), "gpt-4o-mini").Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, keys := decodeRequest(t, srv.requests()[0]); keys["tool_choice"] != nil {
		t.Errorf("tool_choice = %s, want none for a request without tools", keys["tool_choice"])
	}
}

// A reply in prose instead of a call of the output tool fails at
// json-parse, and its correction is a user message asking for the call.
func TestAgentOutputToolProseInsteadOfTheCallThroughTheWire(t *testing.T) {
	srv := newFakeServer(t,
		okReply(plainCompletion), // "Paris.": text, not a call
		okReply(toolCall("call_1", "final_result", `{"city":"Paris","tempC":18}`)),
	)
	a := agent.New(New(srv.client(), "gpt-4o-mini"), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v (the call's arguments)", got, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried || res.Attempts[0].Stage != enforce.StageJSONParse ||
		!strings.Contains(res.Attempts[0].Error, `not a call to the tool "final_result"`) || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Errorf("rows = %+v, want the prose retried at json-parse as no call of the tool, then a pass", res.Attempts)
	}
	second, _ := decodeRequest(t, srv.requests()[1])
	n := len(second.Messages)
	asked, corr := second.Messages[n-2], second.Messages[n-1]
	var said, text string
	json.Unmarshal(asked.Content, &said)
	json.Unmarshal(corr.Content, &text)
	if asked.Role != "assistant" || said != "Paris." {
		t.Errorf("second request's assistant message = %+v, want the prose reply", asked)
	}
	if corr.Role != "user" || !strings.Contains(text, `Call the tool "final_result"`) || !strings.HasSuffix(text, `not a call to the tool \"final_result\""`) {
		t.Errorf("correction = role %s, %q; want a user message asking for the call and ending with the issue", corr.Role, text)
	}
}
