package openai

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

// finished is a 200 body with one choice: message (its JSON) ending with
// finish_reason.
func finished(finish, message string) string {
	return `{"id":"chatcmpl-9","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",
"choices":[{"index":0,"finish_reason":"` + finish + `","logprobs":null,"message":` + message + `}],
"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`
}

// text is an assistant message whose content is s.
func text(s string) string {
	b, _ := json.Marshal(s)
	return `{"role":"assistant","content":` + string(b) + `,"refusal":null}`
}

const (
	cutAnswer  = `{"city":"Paris","te`
	refusalMsg = `{"role":"assistant","content":null,"refusal":"I'm sorry, I can't help with that."}`
	cutCall    = `{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_cut","type":"function",
"function":{"name":"weather","arguments":"{\"city\":\"Pa"}}]}`
)

func TestGenerateSaysWhyTheReplyEnded(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		stop    agent.StopReason
		raw     string
		content string
	}{
		{"stop is complete", finished("stop", text("Paris.")), agent.StopComplete, "stop", "Paris."},
		{"length is a cut-off reply", finished("length", text(cutAnswer)), agent.StopLength, "length", cutAnswer},
		{"tool_calls is tool use", toolCallCompletion, agent.StopToolUse, "tool_calls", ""},
		{"the older function_call is tool use", finished("function_call", `{"role":"assistant","content":null,"function_call":{"name":"weather","arguments":"{}"}}`), agent.StopToolUse, "function_call", ""},
		{"content_filter is a filtered reply", finished("content_filter", `{"role":"assistant","content":null,"refusal":null}`), agent.StopContentFilter, "content_filter", ""},
		{"a message with a refusal is a refusal, its text the content", finished("stop", refusalMsg), agent.StopRefusal, "stop", "I'm sorry, I can't help with that."},
		{"a finish_reason OpenAI does not document is unknown, kept raw", finished("insufficient_system_resource", text("")), agent.StopUnknown, "insufficient_system_resource", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, okReply(tt.body))
			resp, err := New(srv.client(), "gpt-4o-mini").Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Paris?"}}})
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
		srv := newFakeServer(t, okReply(finished("length", text(cutAnswer))), okReply(finished("length", text(cutAnswer))))
		a := agent.New(New(srv.client(), "gpt-4o-mini"), agent.WithOutputRetries(2))

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
		if got := string(second.Messages[len(second.Messages)-1].Content); !strings.Contains(got, "cut off at the output length limit") {
			t.Errorf("corrective message = %s, want it to say the answer was cut off", got)
		}
	})

	t.Run("an answer cut off, then complete, passes", func(t *testing.T) {
		srv := newFakeServer(t, okReply(finished("length", text(cutAnswer))), okReply(completion(`{"city":"Paris","tempC":18}`)))
		a := agent.New(New(srv.client(), "gpt-4o-mini"), agent.WithOutputRetries(1))
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

	t.Run("a tool call cut off at max tokens is not run, and the model is told", func(t *testing.T) {
		srv := newFakeServer(t, okReply(finished("length", cutCall)), okReply(completion(`{"city":"Paris","tempC":18}`)))
		ran := false
		tool := agent.NewTool("weather", "Current weather for a city.", func(context.Context, weatherArgs) (string, error) {
			ran = true
			return "18°C", nil
		})
		a := agent.New(New(srv.client(), "gpt-4o-mini"), agent.WithTools(tool))
		if _, _, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?"); err != nil {
			t.Fatal(err)
		}
		if ran {
			t.Error("the tool ran with cut-off arguments")
		}
		second, _ := decodeRequest(t, srv.requests()[1])
		last := second.Messages[len(second.Messages)-1]
		if last.Role != "tool" || last.ToolCallID != "call_cut" || !strings.Contains(string(last.Content), "cut off") {
			t.Errorf("last message = %+v %s, want a tool message for call_cut saying it was cut off", last, last.Content)
		}
	})

	for _, tt := range []struct {
		name, body, text string
		stop             agent.StopReason
	}{
		{"a refusal", finished("stop", refusalMsg), "I'm sorry, I can't help with that.", agent.StopRefusal},
		{"a content filter stop", finished("content_filter", `{"role":"assistant","content":null,"refusal":null}`), "", agent.StopContentFilter},
	} {
		t.Run(tt.name+" ends the run with a RefusalError, unjudged", func(t *testing.T) {
			srv := newFakeServer(t, okReply(tt.body))
			// Early abort stays on: a refusal is marked from its first
			// delta, and the loop stops judging the reply there.
			a := agent.New(New(srv.client(), "gpt-4o-mini"), agent.WithOutputRetries(2))
			_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
			var re *agent.RefusalError
			if !errors.As(err, &re) || re.Stop != tt.stop || re.Text != tt.text {
				t.Fatalf("err = %#v, want an *agent.RefusalError %q with text %q", err, tt.stop, tt.text)
			}
			if len(res.Attempts) != 1 || res.Attempts[0].Withheld != string(tt.stop) || res.Attempts[0].Stage != "" {
				t.Errorf("rows = %+v, want one unjudged row withheld for %q", res.Attempts, tt.stop)
			}
		})
	}
}
