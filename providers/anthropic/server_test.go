package anthropic

import (
	"encoding/json"
	"flag"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

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
// its text, thinking or tool input in deltas of a few bytes, and stopped,
// then message_delta with stop_reason and output tokens, message_stop. A
// body that does not decode is sent as one message_start event.
func streamOf(body string) []string {
	var msg struct {
		Role    string `json:"role"`
		Content []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
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
	return sdk.NewClient(append([]option.RequestOption{
		option.WithBaseURL(f.URL + "/"),
		option.WithAPIKey("test-key"),
	}, opts...)...)
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
