package anthropic

import (
	"encoding/json"
	"flag"
	"net/http"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

var update = flag.Bool("update", false, "rewrite the golden request bodies in testdata/")

// reply is one scripted HTTP response.
type reply = wiretest.Reply

// okReply is a 200 with a Messages API body.
func okReply(body string) reply { return wiretest.OK(body) }

// fakeServer speaks the Messages API wire format from a script and keeps
// every request body it received.
type fakeServer struct{ *wiretest.Server }

func newFakeServer(t *testing.T, script ...reply) *fakeServer {
	t.Helper()
	s := wiretest.NewServer(t, script...)
	s.StreamsWith(streamOf)
	return &fakeServer{s}
}

// streamOf is a Messages API body streamed as the API streams it:
// message_start with the usage's input counts, each content block started,
// its text, thinking (then its signature) or tool input in deltas of a
// few bytes, a redacted_thinking block whole at its start, and stopped,
// then message_delta with stop_reason and output tokens, message_stop. A
// body that does not decode is sent as one message_start event.
func streamOf(body string) []string {
	var msg struct {
		Role    string `json:"role"`
		Content []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
			Sig      string          `json:"signature"`
			Data     string          `json:"data"`
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Input    json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      struct {
			InputTokens              int `json:"input_tokens"`
			CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int `json:"cache_read_input_tokens"`
			OutputTokens             int `json:"output_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal([]byte(body), &msg) != nil {
		return []string{sse("message_start", body)}
	}
	jsonOf := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	u := msg.Usage
	evs := []string{sseStart(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens), ssePing}
	for i, b := range msg.Content {
		switch b.Type {
		case "text":
			evs = append(evs, sseBlockStart(i, textStart))
			for _, p := range wiretest.Pieces(b.Text, 5) {
				evs = append(evs, sseText(i, p))
			}
		case "thinking":
			evs = append(evs, sseBlockStart(i, `{"type":"thinking","thinking":"","signature":""}`))
			for _, p := range wiretest.Pieces(b.Thinking, 5) {
				evs = append(evs, sseDelta(i, `{"type":"thinking_delta","thinking":`+jsonOf(p)+`}`))
			}
			if b.Sig != "" {
				// The signature comes whole, just before the block stops.
				evs = append(evs, sseDelta(i, `{"type":"signature_delta","signature":`+jsonOf(b.Sig)+`}`))
			}
		case "redacted_thinking":
			evs = append(evs, sseBlockStart(i, `{"type":"redacted_thinking","data":`+jsonOf(b.Data)+`}`))
		case "tool_use":
			evs = append(evs, sseBlockStart(i, `{"type":"tool_use","id":`+jsonOf(b.ID)+`,"name":`+jsonOf(b.Name)+`,"input":{}}`))
			for _, p := range wiretest.Pieces(string(b.Input), 4) {
				evs = append(evs, sseJSON(i, p))
			}
		default:
			evs = append(evs, sseBlockStart(i, `{"type":`+jsonOf(b.Type)+`}`))
		}
		evs = append(evs, sseBlockStop(i))
	}
	return append(evs, sseEnd(msg.StopReason, u.OutputTokens)...)
}

// client is configured as a user would, against the fake server.
func (f *fakeServer) client(opts ...option.RequestOption) sdk.Client {
	return clientAt(f.URL, opts...)
}

// clientAt is a client of the server at url, configured as a user would.
func clientAt(url string, opts ...option.RequestOption) sdk.Client {
	return sdk.NewClient(append([]option.RequestOption{
		option.WithBaseURL(url + "/"),
		option.WithAPIKey("test-key"),
	}, opts...)...)
}

// adapter is the adapter under test, as wiretest's scenarios drive it.
var adapter = wiretest.Adapter{
	System:  System,
	Streams: streamOf,
	New: func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		var opts []option.RequestOption
		if c.Retries {
			opts = append(opts, option.WithMaxRetries(3))
		}
		if c.Timeout > 0 {
			opts = append(opts, option.WithHTTPClient(&http.Client{Timeout: c.Timeout}))
		}
		return New(clientAt(c.URL, opts...), "claude-sonnet-4-5")
	},
	Read: readRequest,
}

// readRequest reads a Messages API request into wiretest's terms: the
// system prompt's text blocks as a system message, a tool_use block a
// call, a tool_result block a result of at most one text block.
func readRequest(t *testing.T, body []byte) wiretest.Sent {
	t.Helper()
	req, keys := decodeRequest(t, body)
	var sent wiretest.Sent
	if len(req.System) > 0 {
		system := wiretest.Message{Role: "system"}
		for _, b := range req.System {
			if b.Type != "text" {
				t.Fatalf("a system block of type %q", b.Type)
			}
			system.Parts = append(system.Parts, wiretest.Part{Kind: "text", Text: b.Text})
		}
		sent.Messages = append(sent.Messages, system)
	}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			t.Fatalf("message %d: role %q", i, m.Role)
		}
		msg := wiretest.Message{Role: m.Role}
		for _, b := range m.Content {
			p := wiretest.Part{Kind: b.Type}
			switch b.Type {
			case "text":
				p.Text = b.Text
			case "tool_use":
				p.Kind, p.ID, p.Name, p.Args = "call", b.ID, b.Name, string(b.Input)
			case "tool_result":
				p.Kind, p.ID = "result", b.ToolUseID
				switch {
				case len(b.Content) == 1 && b.Content[0].Type == "text":
					p.Text = b.Content[0].Text
				case len(b.Content) > 0:
					t.Fatalf("message %d: a tool_result of %+v, want at most one text block", i, b.Content)
				}
			}
			msg.Parts = append(msg.Parts, p)
		}
		sent.Messages = append(sent.Messages, msg)
	}
	for _, tool := range req.Tools {
		sent.Tools = append(sent.Tools, wiretest.Tool{Name: tool.Name, Description: tool.Description, Schema: tool.InputSchema})
	}
	sent.ToolChoice = wiretest.Field(keys, "tool_choice")
	var choice struct {
		Type string `json:"type"`
	}
	sent.CallRequired = json.Unmarshal(sent.ToolChoice, &choice) == nil && choice.Type == "any"
	sent.Format = wiretest.Field(keys, "output_config")
	return sent
}

// requests returns the request bodies received so far.
func (f *fakeServer) requests() [][]byte { return f.Requests() }

// wireRequest is a Messages API request body as Anthropic documents it.
type wireRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	System    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"system"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	OutputConfig *struct {
		Format struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"output_config"`
}

func decodeRequest(t *testing.T, body []byte) (wireRequest, map[string]json.RawMessage) {
	t.Helper()
	var req wireRequest
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body is not a Messages API request: %v\n%s", err, body)
	}
	if err := json.Unmarshal(body, &keys); err != nil {
		t.Fatal(err)
	}
	return req, keys
}

// roles lists the roles of a request's messages, in order, each with the
// types of its content blocks.
func (r wireRequest) roles() []string {
	var out []string
	for _, m := range r.Messages {
		role := m.Role + ":"
		for i, b := range m.Content {
			if i > 0 {
				role += ","
			}
			role += b.Type
		}
		out = append(out, role)
	}
	return out
}

// checkGolden compares a request body with testdata/name; -update
// rewrites the file.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	wiretest.Golden(t, name, body, *update)
}
