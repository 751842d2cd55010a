package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
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
	tests := []struct {
		name    string
		body    string
		stop    agent.StopReason
		raw     string
		content string
	}{
		{"end_turn is complete", plainMessage, agent.StopComplete, "end_turn", "Paris."},
		{"stop_sequence is complete", stopped("stop_sequence", textBlock("Paris.")), agent.StopComplete, "stop_sequence", "Paris."},
		{"max_tokens is a cut-off reply", stopped("max_tokens", textBlock(cutAnswer)), agent.StopLength, "max_tokens", cutAnswer},
		{"model_context_window_exceeded is a cut-off reply", stopped("model_context_window_exceeded", textBlock(cutAnswer)), agent.StopLength, "model_context_window_exceeded", cutAnswer},
		{"tool_use is tool use", toolUseMessage, agent.StopToolUse, "tool_use", "Let me check."},
		{"refusal is a refusal, its text the content", stopped("refusal", textBlock("I can't help with that.")), agent.StopRefusal, "refusal", "I can't help with that."},
		{"pause_turn is unknown, kept raw", stopped("pause_turn", `[]`), agent.StopUnknown, "pause_turn", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, okReply(tt.body))
			resp, err := New(srv.client(), "claude-sonnet-4-5").Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Paris?"}}})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := resp.Stop, tt.stop; got != want {
				t.Errorf("Stop = %q, want %q", got, want)
			}
			if got, want := resp.StopRaw, tt.raw; got != want {
				t.Errorf("StopRaw = %q, want %q", got, want)
			}
			if got, want := resp.Message.Content, tt.content; got != want {
				t.Errorf("content = %q, want %q", got, want)
			}
		})
	}
}

func truncated(rows []enforce.Attempt) []bool {
	var out []bool
	for _, r := range rows {
		out = append(out, r.Truncated)
	}
	return out
}

func TestAgentThroughTheWire(t *testing.T) {
	t.Run("an answer cut off twice is exhausted with a retry left", func(t *testing.T) {
		srv := newFakeServer(t, okReply(stopped("max_tokens", textBlock(cutAnswer))), okReply(stopped("max_tokens", textBlock(cutAnswer))))
		a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithOutputRetries(2))

		_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")

		var oe *enforce.OutputError
		if !errors.As(err, &oe) || !oe.Truncated {
			t.Fatalf("err = %v, want an *enforce.OutputError with Truncated", err)
		}
		if got, want := truncated(res.Attempts), []bool{true, true}; !slices.Equal(got, want) {
			t.Errorf("rows' Truncated = %v, want %v", got, want)
		}
		if got, want := res.Attempts[1].Outcome, enforce.OutcomeExhausted; got != want {
			t.Errorf("second row = %q, want %q", got, want)
		}
		second, _ := decodeRequest(t, srv.requests()[1])
		last := second.Messages[len(second.Messages)-1]
		if last.Role != "user" || !strings.Contains(last.Content[len(last.Content)-1].Text, "cut off at the output length limit") {
			t.Errorf("last message = %+v, want the correction saying the answer was cut off", last)
		}
	})

	t.Run("an answer cut off, then complete, passes", func(t *testing.T) {
		srv := newFakeServer(t, okReply(stopped("max_tokens", textBlock(cutAnswer))), okReply(message(`{"city":"Paris","tempC":18}`)))
		a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithOutputRetries(1))
		w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := w, (Weather{City: "Paris", TempC: 18}); got != want {
			t.Errorf("answer = %+v, want %+v", got, want)
		}
		if got, want := truncated(res.Attempts), []bool{true, false}; !slices.Equal(got, want) {
			t.Errorf("rows' Truncated = %v, want %v", got, want)
		}
	})

	t.Run("a tool_use cut off at max_tokens is not run, and the model is told", func(t *testing.T) {
		srv := newFakeServer(t, okReply(stopped("max_tokens", cutToolUse)), okReply(message(`{"city":"Paris","tempC":18}`)))
		ran := false
		tool := agent.NewTool("weather", "Current weather for a city.", func(context.Context, weatherArgs) (string, error) {
			ran = true
			return "18°C", nil
		})
		a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithTools(tool))
		if _, _, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?"); err != nil {
			t.Fatal(err)
		}
		if ran {
			t.Error("the tool ran with cut-off input")
		}
		second, _ := decodeRequest(t, srv.requests()[1])
		last := second.Messages[len(second.Messages)-1]
		if len(last.Content) != 1 {
			t.Fatalf("last message = %+v, want one tool_result", last)
		}
		b := last.Content[0]
		if b.Type != "tool_result" || b.ToolUseID != "toolu_cut" || len(b.Content) != 1 || !strings.Contains(b.Content[0].Text, "cut off") {
			t.Errorf("last block = %+v, want a tool_result for toolu_cut saying it was cut off", b)
		}
	})

	t.Run("a refusal ends the run with a RefusalError, unjudged", func(t *testing.T) {
		srv := newFakeServer(t, okReply(stopped("refusal", textBlock("I can't help with that."))))
		// Early abort off: the API says a reply is a refusal only at its
		// end, so early abort would cut it as prose (see
		// agent.WithEarlyAbort).
		a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithOutputRetries(2), agent.WithEarlyAbort(false))
		_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
		var re *agent.RefusalError
		if !errors.As(err, &re) || re.Stop != agent.StopRefusal || re.Raw != "refusal" || re.Text != "I can't help with that." {
			t.Fatalf("err = %#v, want an *agent.RefusalError with the text", err)
		}
		if len(res.Attempts) != 1 || res.Attempts[0].Withheld != "refusal" || res.Attempts[0].Stage != "" {
			t.Errorf("rows = %+v, want one unjudged row withheld for refusal", res.Attempts)
		}
	})
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
