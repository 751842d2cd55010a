package openaiwiretest

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

type weather struct {
	City  string `json:"city"`
	TempC int    `json:"tempC"`
}

const paris = `{"city":"Paris","tempC":18}`

// reasoned is a reply of a reasoning server: its thinking in the member
// field (reasoning_content or reasoning), its content (null when nil),
// ending with finish.
func reasoned(field, thinking string, content *string, finish string) string {
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	return `{"id":"chatcmpl-r","object":"chat.completion","created":1700000000,"model":"deepseek-reasoner",
"choices":[{"index":0,"finish_reason":` + j(finish) + `,"logprobs":null,"message":{"role":"assistant","content":` + j(content) + `,` + j(field) + `:` + j(thinking) + `}}],
"usage":{"prompt_tokens":10,"completion_tokens":50,"total_tokens":60,"completion_tokens_details":{"reasoning_tokens":40}}}`
}

// servers are the reasoning members as each server documents them.
var servers = []struct{ name, field string }{
	{"vLLM, DeepSeek, SGLang and llama.cpp's reasoning_content", "reasoning_content"},
	{"OpenRouter's and Ollama's reasoning", "reasoning"},
}

// servers are the reasoning members h's client decodes: reasoning_content
// alone with ReasoningContentOnly (see
// TestAReasoningMemberGoOpenAIDropsLeavesTheAnswer).
func (h Harness) servers() []struct{ name, field string } {
	if h.ReasoningContentOnly {
		return servers[:1]
	}
	return servers
}

// modes are how the agent reads a reply: streamed, or whole.
var modes = []struct {
	name string
	opts []Option
}{{"streamed", nil}, {"whole", []Option{WithoutStreaming()}}}

func (h Harness) testReasoningFieldsAreThinking(t *testing.T) {
	for _, srv := range h.servers() {
		for _, mode := range modes {
			t.Run(srv.name+", "+mode.name+": kept beside the answer, not judged", func(t *testing.T) {
				answer := paris
				f := newFakeServer(t, okReply(reasoned(srv.field, `Paris in June: {"tempC": maybe 18}.`, &answer, "stop")))
				a := agent.New(h.New(f.URL, "deepseek-reasoner", mode.opts...), agent.WithOutputRetries(1))

				w, res, err := agent.RunTyped[weather](t.Context(), a, "Weather in Paris?")
				if err != nil {
					t.Fatal(err)
				}
				if w != (weather{City: "Paris", TempC: 18}) {
					t.Errorf("answer = %+v", w)
				}
				msg := res.Messages[len(res.Messages)-1]
				if msg.Content != paris || msg.Reasoning != `Paris in June: {"tempC": maybe 18}.` {
					t.Errorf("message = %+v, want the answer and the reasoning apart", msg)
				}
				if got, want := res.Attempts[0].Thinking, (&enforce.Thinking{Bytes: len(msg.Reasoning)}); !reflect.DeepEqual(got, want) {
					t.Errorf("row's Thinking = %+v, want %+v", got, want)
				}
			})

			t.Run(srv.name+", "+mode.name+": the JSON only in the reasoning is an answer that never came (vllm#48863)", func(t *testing.T) {
				f := newFakeServer(t, okReply(reasoned(srv.field, paris, nil, "stop")), okReply(Completion(paris)))
				a := agent.New(h.New(f.URL, "qwen3", mode.opts...), agent.WithOutputRetries(1))

				_, res, err := agent.RunTyped[weather](t.Context(), a, "Weather in Paris?")
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Attempts[0]; got.Stage != enforce.StageNoAnswer || got.Outcome != enforce.OutcomeRetried {
					t.Errorf("first row = %+v, want retried at no-answer", got)
				}
			})

			t.Run(srv.name+", "+mode.name+": reasoning cut at the limit is an answer that never came", func(t *testing.T) {
				f := newFakeServer(t, okReply(reasoned(srv.field, "Let me think about Paris. Hmm", nil, "length")), okReply(Completion(paris)))
				a := agent.New(h.New(f.URL, "qwen3", mode.opts...), agent.WithOutputRetries(1))

				_, res, err := agent.RunTyped[weather](t.Context(), a, "Weather in Paris?")
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Attempts[0]; got.Stage != enforce.StageNoAnswer || !got.Truncated || got.ReasoningTokens != 40 {
					t.Errorf("first row = %+v, want no-answer, truncated, 40 reasoning tokens", got)
				}
			})
		}
	}

	for _, mode := range modes {
		t.Run(mode.name+": a server without a reasoning parser sends <think> in the content", func(t *testing.T) {
			f := newFakeServer(t, okReply(Completion("<think>\nParis, June.\n</think>\n\n"+paris)))
			a := agent.New(h.New(f.URL, "qwen3", mode.opts...), agent.WithOutputRetries(0))
			_, res, err := agent.RunTyped[weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if msg := res.Messages[len(res.Messages)-1]; msg.Content != paris || msg.Reasoning != "Paris, June." {
				t.Errorf("message = %+v, want the answer and the reasoning apart", msg)
			}
		})
	}
}

func (h Harness) testReasoningSentBack(t *testing.T) {
	// DeepSeek's thinking mode: the turn that called a tool comes back
	// with its reasoning_content; an answer's thinking does not.
	call := `{"id":"chatcmpl-t","object":"chat.completion","created":1700000000,"model":"deepseek-chat",
"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"","reasoning_content":"I need the weather.",
"tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]}}],
"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`
	prose := "It is sunny."
	f := newFakeServer(t, okReply(call), okReply(reasoned("reasoning_content", "Now answer.", &prose, "stop")), okReply(Completion(paris)))
	tool := agent.NewTool("weather", "the weather", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "18", nil
	})
	a := agent.New(h.New(f.URL, "deepseek-chat"), agent.WithTools(tool), agent.WithOutputRetries(1))
	if _, _, err := agent.RunTyped[weather](t.Context(), a, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	var last struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(reqs[2], &last); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, m := range last.Messages {
		if string(m["role"]) == `"assistant"` {
			sent = append(sent, string(m["reasoning_content"]))
		}
	}
	if want := []string{`"I need the weather."`, ""}; !reflect.DeepEqual(sent, want) {
		t.Errorf("assistant messages' reasoning_content sent = %q, want %q", sent, want)
	}
	if strings.Contains(string(reqs[2]), "Now answer.") {
		t.Errorf("the answer's thinking was sent back: %s", reqs[2])
	}
}

// go-openai decodes no reasoning member but reasoning_content: a server
// that sends OpenRouter's or Ollama's reasoning has its thinking dropped,
// and its answer judged as ever.
func (h Harness) testAReasoningMemberGoOpenAIDropsLeavesTheAnswer(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			answer := paris
			f := newFakeServer(t, okReply(reasoned("reasoning", "Paris in June.", &answer, "stop")))
			w, res, err := agent.RunTyped[weather](t.Context(), agent.New(h.New(f.URL, "qwen3", mode.opts...)), "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if msg := res.Messages[len(res.Messages)-1]; w != (weather{City: "Paris", TempC: 18}) || msg.Reasoning != "" {
				t.Errorf("answer %+v, reasoning %q; want the answer, no reasoning", w, msg.Reasoning)
			}
		})
	}
}
