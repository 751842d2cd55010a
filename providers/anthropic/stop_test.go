package anthropic

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// stopped is a 200 body with content (a JSON array of blocks) ending with
// stop_reason.
func stopped(reason, content string) string {
	return `{"id":"msg_09","type":"message","role":"assistant","model":"claude-sonnet-4-5",
"content":` + content + `,"stop_reason":"` + reason + `","stop_sequence":null,
"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}}`
}

// textBlock is a content array of one text block.
func textBlock(s string) string {
	b, _ := json.Marshal(s)
	return `[{"type":"text","text":` + string(b) + `}]`
}

const (
	cutAnswer = `{"city":"Paris","te`
	// cutToolUse is a tool_use block cut at max_tokens, its input as far
	// as the API parsed it.
	cutToolUse = `[{"type":"tool_use","id":"toolu_cut","name":"weather","input":{"city":"Pa"}}]`
)

func TestGenerateSaysWhyTheReplyEnded(t *testing.T) {
	wiretest.StopReasons(t, adapter, []wiretest.Ended{
		{Name: "end_turn is complete", Body: plainMessage, Stop: agent.StopComplete, Raw: "end_turn", Content: "Paris."},
		{Name: "stop_sequence is complete", Body: stopped("stop_sequence", textBlock("Paris.")), Stop: agent.StopComplete, Raw: "stop_sequence", Content: "Paris."},
		{Name: "max_tokens is a cut-off reply", Body: stopped("max_tokens", textBlock(cutAnswer)), Stop: agent.StopLength, Raw: "max_tokens", Content: cutAnswer},
		{Name: "model_context_window_exceeded is a cut-off reply", Body: stopped("model_context_window_exceeded", textBlock(cutAnswer)), Stop: agent.StopLength, Raw: "model_context_window_exceeded", Content: cutAnswer},
		{Name: "tool_use is tool use", Body: toolUseMessage, Stop: agent.StopToolUse, Raw: "tool_use", Content: "Let me check."},
		{Name: "refusal is a refusal, its text the content", Body: stopped("refusal", textBlock("I can't help with that.")), Stop: agent.StopRefusal, Raw: "refusal", Content: "I can't help with that."},
		{Name: "pause_turn is unknown, kept raw", Body: stopped("pause_turn", `[]`), Stop: agent.StopUnknown, Raw: "pause_turn"},
	})
}

func TestAgentThroughTheWire(t *testing.T) {
	answer := okReply(message(`{"city":"Paris","tempC":18}`))
	wiretest.AgentTruncatedAnswers(t, adapter, okReply(stopped("max_tokens", textBlock(cutAnswer))), answer)
	wiretest.AgentTruncatedCall(t, adapter, okReply(stopped("max_tokens", cutToolUse)), "toolu_cut", answer)
	wiretest.AgentJudgesToolCalls(t, adapter, okReply(toolUse("toolu_bad", "weather", `{"city":42}`)), "toolu_bad",
		okReply(toolUse("toolu_good", "weather", `{"city":"Paris"}`)), "toolu_good", answer)
	wiretest.AgentWithheld(t, adapter, []wiretest.Withheld{{
		Name: "a refusal", Reply: okReply(stopped("refusal", textBlock("I can't help with that."))),
		Stop: agent.StopRefusal, Raw: "refusal", Text: "I can't help with that.",
		// Early abort off: the API says a reply is a refusal only at its
		// end, so early abort would cut it as prose (see
		// agent.WithEarlyAbort).
		Options: []agent.Option{agent.WithEarlyAbort(false)},
	}})
}

func TestWhitespaceOnlyTextIsNotSent(t *testing.T) {
	t.Run("a model's whitespace before a tool call is not sent back", func(t *testing.T) {
		srv := newFakeServer(t,
			okReply(stopped("tool_use", `[{"type":"text","text":"\n\n"},{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}}]`)),
			okReply(message("18°C in Paris.")),
		)
		tool := agent.NewTool("weather", "Current weather for a city.", func(context.Context, weatherArgs) (string, error) { return "18°C", nil })
		if _, err := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithTools(tool)).Run(context.Background(), "Weather?"); err != nil {
			t.Fatal(err)
		}
		second, _ := decodeRequest(t, srv.requests()[1])
		if got, want := second.roles(), []string{"user:text", "assistant:tool_use", "user:tool_result"}; !slices.Equal(got, want) {
			t.Errorf("roles = %v, want %v", got, want)
		}
	})

	t.Run("no message role sends a whitespace-only text block", func(t *testing.T) {
		srv := newFakeServer(t, okReply(plainMessage))
		_, err := New(srv.client(), "claude-sonnet-4-5").Generate(context.Background(), agent.Request{Messages: []agent.Message{
			{Role: agent.RoleSystem, Content: " \n"},
			{Role: agent.RoleUser, Content: "Weather?"},
			{Role: agent.RoleAssistant, Content: "\t", ToolCalls: []agent.ToolCall{{ID: "toolu_1", Name: "weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
			{Role: agent.RoleTool, Content: "  ", ToolCallID: "toolu_1"},
			{Role: agent.RoleUser, Content: "\n"},
		}})
		if err != nil {
			t.Fatal(err)
		}
		req, keys := decodeRequest(t, srv.requests()[0])
		if _, ok := keys["system"]; ok {
			t.Errorf("system = %+v, want none", req.System)
		}
		for _, m := range req.Messages {
			for _, b := range m.Content {
				if (b.Type == "text" && strings.TrimSpace(b.Text) == "") || len(b.Content) > 0 {
					t.Errorf("%s message has a block %+v, want no whitespace-only text", m.Role, b)
				}
			}
		}
	})
}
