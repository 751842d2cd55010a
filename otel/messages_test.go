package otel_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/otel"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// With WithContent, the messages are in the shape the GenAI conventions'
// input and output message schemas give: a role and parts, each part
// typed (text, tool_call, tool_call_response), and a finish_reason on an
// output message.
func TestMessagesFollowTheConventionsSchemas(t *testing.T) {
	tp, exp := traced(t)
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("call-1", "lookup", `{"city":"Zanzibar"}`)),
		agenttest.Reply(valid).WithStop(agent.StopComplete))
	lookup := agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "31C", nil }}
	a := agent.New(m, agent.WithTools(lookup), agent.WithSystemPrompt("Be brief."),
		agent.WithObserver(otel.Observer(otel.WithTracerProvider(tp), otel.WithModel("test", "scripted-1"), otel.WithContent())))

	if _, err := a.Run(t.Context(), prompt); err != nil {
		t.Fatal(err)
	}
	var chats []tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		if s.Name == "chat scripted-1" {
			chats = append(chats, s)
		}
	}
	slices.SortFunc(chats, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want 2", len(chats))
	}
	for _, tc := range []struct {
		span      tracetest.SpanStub
		key, want string
	}{
		{chats[0], "gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","id":"call-1","name":"lookup","arguments":{"city":"Zanzibar"}}],"finish_reason":"tool_call"}]`},
		{chats[1], "gen_ai.input.messages", `[{"role":"system","parts":[{"type":"text","content":"Be brief."}]},` +
			`{"role":"user","parts":[{"type":"text","content":"What is the weather in Zanzibar today?"}]},` +
			`{"role":"assistant","parts":[{"type":"tool_call","id":"call-1","name":"lookup","arguments":{"city":"Zanzibar"}}]},` +
			`{"role":"tool","parts":[{"type":"tool_call_response","id":"call-1","response":"31C"}]}]`},
		{chats[1], "gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"{\"city\":\"Zanzibar\",\"tempC\":31}"}],"finish_reason":"stop"}]`},
	} {
		if got := attrs(tc.span)[tc.key]; got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.key, got, tc.want)
		}
	}
}

// A model that does not give the provider's own word for why its reply
// ended has the adapter's reported in the conventions' words.
func TestFinishReasonsInTheConventionsWords(t *testing.T) {
	for stop, want := range map[agent.StopReason]string{
		agent.StopComplete: `["stop"]`, agent.StopToolUse: `["tool_call"]`, agent.StopLength: `["length"]`,
		agent.StopContentFilter: `["content_filter"]`, agent.StopUnknown: `["unknown"]`, "": "",
	} {
		tp, exp := traced(t)
		m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
			return agent.Response{Message: agent.Message{Content: valid}, Stop: stop}, nil
		})
		a := agent.New(m, agent.WithObserver(otel.Observer(otel.WithTracerProvider(tp), otel.WithModel("test", "scripted-1"))))
		_, _ = a.Run(t.Context(), prompt) // a content filter fails the run; its chat span is what counts
		if got := attrs(span(t, exp.GetSpans(), "chat scripted-1"))["gen_ai.response.finish_reasons"]; got != want {
			t.Errorf("stop %q: finish_reasons %s, want %s", stop, got, want)
		}
	}
}
