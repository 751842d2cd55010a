package goopenai

import (
	"encoding/json"
	"flag"
	"net/http"
	"testing"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

var update = flag.Bool("update", false, "rewrite the golden request bodies in testdata/")

// reply is one scripted HTTP response.
type reply = wiretest.Reply

// okReply is a 200 with a chat completions body.
func okReply(body string) reply { return wiretest.OK(body) }

// fakeServer speaks the chat completions wire format from a script and keeps
// every request body it received.
type fakeServer struct{ *wiretest.Server }

func newFakeServer(t *testing.T, script ...reply) *fakeServer {
	t.Helper()
	s := wiretest.NewServer(t, script...)
	s.StreamsWith(streamOf)
	return &fakeServer{s}
}

// streamOf is a chat completion body streamed as OpenAI streams it: the
// first choice's thinking (reasoning_content or reasoning), then its
// content (or refusal), in deltas of a few bytes, each tool
// call's id, type and name first and its arguments in fragments, the
// finish_reason, the usage in a last chunk without choices, [DONE]. A body
// that does not decode is sent as one event.
func streamOf(body string) []string {
	var cc struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content *string `json:"content"`
				Refusal *string `json:"refusal"`
				// The thinking OpenAI-compatible servers give apart
				// (see reasoningFields), streamed first, as they do.
				ReasoningContent *string `json:"reasoning_content"`
				Reasoning        *string `json:"reasoning"`
				ToolCalls        []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if json.Unmarshal([]byte(body), &cc) != nil || len(cc.Choices) == 0 {
		return []string{event(body)}
	}
	ch := cc.Choices[0]
	jsonOf := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	evs := []string{delta(`{"role":"assistant","content":"","refusal":null}`, "")}
	for _, f := range [...]struct {
		name string
		text *string
	}{{"reasoning_content", ch.Message.ReasoningContent}, {"reasoning", ch.Message.Reasoning}} {
		if f.text != nil {
			for _, p := range wiretest.Pieces(*f.text, 5) {
				evs = append(evs, delta(`{`+jsonOf(f.name)+`:`+jsonOf(p)+`}`, ""))
			}
		}
	}
	if c := ch.Message.Content; c != nil {
		for _, p := range wiretest.Pieces(*c, 5) {
			evs = append(evs, delta(`{"content":`+jsonOf(p)+`}`, ""))
		}
	}
	if r := ch.Message.Refusal; r != nil {
		for _, p := range wiretest.Pieces(*r, 5) {
			evs = append(evs, delta(`{"refusal":`+jsonOf(p)+`}`, ""))
		}
	}
	for i, tc := range ch.Message.ToolCalls {
		first := map[string]any{"index": i, "type": tc.Type, "function": map[string]string{"name": tc.Function.Name, "arguments": ""}}
		if tc.ID != "" {
			first["id"] = tc.ID
		}
		evs = append(evs, delta(`{"tool_calls":[`+jsonOf(first)+`]}`, ""))
		for _, p := range wiretest.Pieces(tc.Function.Arguments, 4) {
			evs = append(evs, delta(`{"tool_calls":[{"index":`+jsonOf(i)+`,"function":{"arguments":`+jsonOf(p)+`}}]}`, ""))
		}
	}
	evs = append(evs, delta(`{}`, ch.FinishReason))
	if len(cc.Usage) > 0 && string(cc.Usage) != "null" {
		evs = append(evs, event(`{"id":"chatcmpl-s1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[],"usage":`+string(cc.Usage)+`}`))
	}
	return append(evs, done)
}

// client is a client configuration of the fake server, as a user would
// write it.
func (f *fakeServer) client() sdk.ClientConfig {
	return clientAt(f.URL)
}

// clientAt is a client configuration of the server at url, as a user
// would write it.
func clientAt(url string) sdk.ClientConfig {
	c := sdk.DefaultConfig("test-key")
	c.BaseURL = url + "/v1"
	return c
}

// adapter is the adapter under test, as wiretest's scenarios drive it.
var adapter = wiretest.Adapter{
	System:  System,
	Streams: streamOf,
	New: func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		// go-openai never retries: c.Retries asks nothing of it.
		config := clientAt(c.URL)
		if c.Timeout > 0 {
			config.HTTPClient = &http.Client{Timeout: c.Timeout}
		}
		return New(config, "gpt-4o-mini")
	},
	Read: readRequest,
	// go-openai decodes each data line alone: see
	// TestAnEndlessDataLineIsReadToItsBound for its bound.
	LinesAlone: true,
}

// readRequest reads a chat completions request into wiretest's terms:
// a message's content is a string or null, a tool message one result, a
// tool call or a tool a function.
func readRequest(t *testing.T, body []byte) wiretest.Sent {
	t.Helper()
	req, keys := decodeRequest(t, body)
	var sent wiretest.Sent
	for i, m := range req.Messages {
		msg := wiretest.Message{Role: m.Role}
		var text *string
		if len(m.Content) > 0 && string(m.Content) != "null" {
			text = new(string)
			if err := json.Unmarshal(m.Content, text); err != nil {
				t.Fatalf("message %d: content %s, want a string", i, m.Content)
			}
		}
		switch m.Role {
		case "tool":
			if text == nil || len(m.ToolCalls) > 0 {
				t.Fatalf("message %d: a tool message %+v, want its content and no calls", i, m)
			}
			msg.Parts = []wiretest.Part{{Kind: "result", ID: m.ToolCallID, Text: *text}}
		case "system", "user", "assistant":
			if text != nil {
				msg.Parts = append(msg.Parts, wiretest.Part{Kind: "text", Text: *text})
			}
			for _, c := range m.ToolCalls {
				if c.Type != "function" {
					t.Fatalf("message %d: a tool call of type %q", i, c.Type)
				}
				msg.Parts = append(msg.Parts, wiretest.Part{Kind: "call", ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
			}
		default:
			t.Fatalf("message %d: role %q", i, m.Role)
		}
		sent.Messages = append(sent.Messages, msg)
	}
	for _, tool := range req.Tools {
		if tool.Type != "function" {
			t.Fatalf("a tool of type %q", tool.Type)
		}
		sent.Tools = append(sent.Tools, wiretest.Tool{Name: tool.Function.Name, Description: tool.Function.Description, Schema: tool.Function.Parameters})
	}
	sent.ToolChoice = wiretest.Field(keys, "tool_choice")
	sent.CallRequired = string(sent.ToolChoice) == `"required"`
	sent.Format = wiretest.Field(keys, "response_format")
	return sent
}

// requests returns the request bodies received so far.
func (f *fakeServer) requests() [][]byte { return f.Requests() }

// wireRequest is a chat completions request body as OpenAI documents it.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Strict *bool           `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Temperature *float64 `json:"temperature"`
}

func decodeRequest(t *testing.T, body []byte) (wireRequest, map[string]json.RawMessage) {
	t.Helper()
	var req wireRequest
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body is not a chat completions request: %v\n%s", err, body)
	}
	if err := json.Unmarshal(body, &keys); err != nil {
		t.Fatal(err)
	}
	return req, keys
}

// roles lists the roles of a request's messages, in order.
func (r wireRequest) roles() []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Role)
	}
	return out
}

// checkGolden compares a request body with testdata/name; -update
// rewrites the file.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	wiretest.Golden(t, name, body, *update)
}
