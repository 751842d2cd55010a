package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// toolUse is a 200 body whose reply is one tool_use block of name with
// input.
func toolUse(id, name, input string) string {
	return `{"id":"msg_04","type":"message","role":"assistant","model":"claude-sonnet-4-5",
"content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}],
"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":8}}`
}

func TestAgentOutputToolThroughTheWire(t *testing.T) {
	srv := newFakeServer(t,
		okReply(toolUse("toolu_1", "final_result", `{"city":"Paris"}`)), // tempC missing
		okReply(toolUse("toolu_2", "final_result", `{"city":"Paris","tempC":18}`)),
	)
	a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1),
		agent.WithEarlyAbort(false)) // read each reply whole, its usage included (a required member missing now cuts at the object's close)
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v (the second call's input)", got, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Stage != enforce.StageSchemaValidate || res.Attempts[0].Path != "/tempC" {
		t.Errorf("rows = %+v, want the first call's input failing at /tempC, then a pass", res.Attempts)
	}
	if r := res.Attempts[0]; r.InputTokens != 30 || r.OutputTokens != 8 {
		t.Errorf("row 1 = %+v, want the call's usage, 30 in and 8 out", r)
	}

	first, keys := decodeRequest(t, srv.requests()[0])
	var choice struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(keys["tool_choice"], &choice); err != nil || choice.Type != "any" {
		t.Errorf("tool_choice = %s, want {\"type\":\"any\"}", keys["tool_choice"])
	}
	if first.OutputConfig != nil {
		t.Errorf("output_config = %+v, want none: the schema is the tool's input schema", first.OutputConfig)
	}
	if len(first.Tools) != 1 || first.Tools[0].Name != "final_result" {
		t.Fatalf("tools = %+v, want final_result alone", first.Tools)
	}
	var params struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(first.Tools[0].InputSchema, &params); err != nil {
		t.Fatal(err)
	}
	if params.Type != "object" || params.Properties["city"] == nil || params.Properties["tempC"] == nil || strings.Join(params.Required, ",") != "city,tempC" {
		t.Errorf("input_schema = %s, want Weather's schema", first.Tools[0].InputSchema)
	}

	// The correction is the tool_result of the failed call, in the user
	// message right after it.
	second, _ := decodeRequest(t, srv.requests()[1])
	n := len(second.Messages)
	asked, corr := second.Messages[n-2], second.Messages[n-1]
	if asked.Role != "assistant" || len(asked.Content) != 1 || asked.Content[0].Type != "tool_use" || asked.Content[0].ID != "toolu_1" {
		t.Errorf("second request's assistant message = %+v, want the toolu_1 call", asked)
	}
	if corr.Role != "user" || len(corr.Content) != 1 || corr.Content[0].Type != "tool_result" || corr.Content[0].ToolUseID != "toolu_1" ||
		len(corr.Content[0].Content) != 1 || !strings.Contains(corr.Content[0].Content[0].Text, `Call the tool "final_result"`) ||
		!strings.Contains(corr.Content[0].Content[0].Text, `"/tempC"`) {
		t.Errorf("correction = %+v, want toolu_1's tool_result naming /tempC", corr)
	}
}

func TestRequireToolCallSendsToolChoiceOnlyWithTools(t *testing.T) {
	srv := newFakeServer(t, okReply(plainMessage))
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, RequireToolCall: true}
	if _, err := New(srv.client(), "claude-sonnet-4-5").Generate(context.Background(), req); err != nil {
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
		okReply(plainMessage), // "Paris.": text, not a call
		okReply(toolUse("toolu_1", "final_result", `{"city":"Paris","tempC":18}`)),
	)
	a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithOutputTool("final_result"), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
		t.Errorf("answer = %+v, want %+v (the call's input)", got, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried || res.Attempts[0].Stage != enforce.StageJSONParse ||
		!strings.Contains(res.Attempts[0].Error, `not a call to the tool "final_result"`) || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Errorf("rows = %+v, want the prose retried at json-parse as no call of the tool, then a pass", res.Attempts)
	}
	second, _ := decodeRequest(t, srv.requests()[1])
	n := len(second.Messages)
	asked, corr := second.Messages[n-2], second.Messages[n-1]
	if asked.Role != "assistant" || len(asked.Content) != 1 || asked.Content[0].Type != "text" || asked.Content[0].Text != "Paris." {
		t.Errorf("second request's assistant message = %+v, want the prose reply", asked)
	}
	if corr.Role != "user" || len(corr.Content) != 1 || corr.Content[0].Type != "text" ||
		!strings.Contains(corr.Content[0].Text, `Call the tool "final_result"`) ||
		!strings.HasSuffix(corr.Content[0].Text, `not a call to the tool \"final_result\""`) {
		t.Errorf("correction = %+v, want a user message asking for the call and ending with the issue", corr)
	}
}
