package gemini

import (
	"encoding/json"
	"flag"
	"net/http"
	"testing"

	"google.golang.org/genai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

var update = flag.Bool("update", false, "rewrite the golden request bodies in testdata/")

// reply is one scripted HTTP response.
type reply = wiretest.Reply

// okReply is a 200 with a generateContent body.
func okReply(body string) reply { return wiretest.OK(body) }

// fakeServer speaks the Gemini API's wire format from a script and keeps
// every request body it received.
type fakeServer struct{ *wiretest.Server }

func newFakeServer(t *testing.T, script ...reply) *fakeServer {
	t.Helper()
	s := wiretest.NewServer(t, script...)
	s.StreamsWith(streamOf)
	return &fakeServer{s}
}

// event is one server-sent event as Gemini sends it.
func event(data string) string { return "data: " + data + "\r\n\r\n" }

// streamOf is a generateContent body streamed as Gemini streams it
// (streamGenerateContent?alt=sse): the first candidate's text parts in
// pieces of a few bytes, each in a chunk of its own, each functionCall
// part whole in a chunk of its own, then a last chunk with the
// finishReason and the usage. A body that does not decode, or has no
// candidate, is sent as one event.
func streamOf(body string) []string {
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []map[string]json.RawMessage `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
		UsageMetadata json.RawMessage `json:"usageMetadata"`
	}
	if json.Unmarshal([]byte(body), &resp) != nil || len(resp.Candidates) == 0 {
		return []string{event(body)}
	}
	jsonOf := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	chunk := func(part string) string {
		return event(`{"candidates":[{"content":{"role":"model","parts":[` + part + `]},"index":0}],"modelVersion":"gemini-test"}`)
	}
	var evs []string
	for _, p := range resp.Candidates[0].Content.Parts {
		var text string
		if raw, ok := p["text"]; ok && json.Unmarshal(raw, &text) == nil && len(p) == 1 {
			for _, piece := range wiretest.Pieces(text, 5) {
				evs = append(evs, chunk(`{"text":`+jsonOf(piece)+`}`))
			}
			continue
		}
		evs = append(evs, chunk(jsonOf(p)))
	}
	last := `{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":` + jsonOf(resp.Candidates[0].FinishReason) + `,"index":0}]`
	if len(resp.UsageMetadata) > 0 {
		last += `,"usageMetadata":` + string(resp.UsageMetadata)
	}
	return append(evs, event(last+`,"modelVersion":"gemini-test"}`))
}

// client is a Gemini API client of the server.
func (f *fakeServer) client(t *testing.T, configure ...func(*genai.ClientConfig)) *genai.Client {
	t.Helper()
	return newClient(t, f.URL, configure...)
}

func newClient(t *testing.T, url string, configure ...func(*genai.ClientConfig)) *genai.Client {
	t.Helper()
	cfg := &genai.ClientConfig{APIKey: "test-key", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}}
	for _, f := range configure {
		f(cfg)
	}
	c, err := genai.NewClient(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fakeServer) requests() [][]byte { return f.Requests() }

// retrying sets a client to retry failed requests, at once.
func retrying(c *genai.ClientConfig) {
	c.HTTPOptions.RetryOptions = &genai.HTTPRetryOptions{Attempts: genai.Ptr[int32](3), InitialDelay: genai.Ptr(0.0), MaxDelay: genai.Ptr(0.0), Jitter: genai.Ptr(0.0)}
}

// adapter is the adapter under test, as wiretest's scenarios drive it.
var adapter = wiretest.Adapter{
	System:  System,
	Streams: streamOf,
	New: func(t *testing.T, c wiretest.Client) agent.StreamingModel {
		return modelAt(t, c)
	},
	Read:         readRequest,
	NamesResults: true,
}

// modelAt is the adapter with opts over a client set up as c asks.
func modelAt(t *testing.T, c wiretest.Client, opts ...Option) *Model {
	t.Helper()
	var configure []func(*genai.ClientConfig)
	if c.Retries {
		configure = append(configure, retrying)
	}
	if c.Timeout > 0 {
		configure = append(configure, func(cc *genai.ClientConfig) { cc.HTTPClient = &http.Client{Timeout: c.Timeout} })
	}
	return New(newClient(t, c.URL, configure...), "gemini-test", opts...)
}

// readRequest reads a generateContent request into wiretest's terms:
// the system instruction as a system message, "model" as the
// assistant, a functionCall part a call, a functionResponse part a
// result whose response is its output alone.
func readRequest(t *testing.T, body []byte) wiretest.Sent {
	t.Helper()
	r, keys := decodeRequest(t, body)
	var sent wiretest.Sent
	if r.SystemInstruction != nil {
		system := wiretest.Message{Role: "system"}
		for _, p := range r.SystemInstruction.Parts {
			system.Parts = append(system.Parts, wiretest.Part{Kind: "text", Text: p.Text})
		}
		sent.Messages = append(sent.Messages, system)
	}
	for i, c := range r.Contents {
		msg := wiretest.Message{Role: map[string]string{"user": "user", "model": "assistant"}[c.Role]}
		if msg.Role == "" {
			t.Fatalf("content %d: role %q", i, c.Role)
		}
		for _, part := range c.Parts {
			var p wiretest.Part
			switch {
			case part["functionCall"] != nil:
				var fc struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				}
				if err := json.Unmarshal(part["functionCall"], &fc); err != nil {
					t.Fatalf("content %d: functionCall %s: %v", i, part["functionCall"], err)
				}
				p = wiretest.Part{Kind: "call", ID: fc.ID, Name: fc.Name, Args: string(fc.Args)}
			case part["functionResponse"] != nil:
				var fr struct {
					ID       string            `json:"id"`
					Name     string            `json:"name"`
					Response map[string]string `json:"response"`
				}
				if err := json.Unmarshal(part["functionResponse"], &fr); err != nil || len(fr.Response) != 1 {
					t.Fatalf("content %d: functionResponse %s, want a response of its output alone (%v)", i, part["functionResponse"], err)
				}
				output, ok := fr.Response["output"]
				if !ok {
					t.Fatalf("content %d: functionResponse %s, want its output", i, part["functionResponse"])
				}
				p = wiretest.Part{Kind: "result", ID: fr.ID, Name: fr.Name, Text: output}
			case part["text"] != nil:
				p.Kind = "text"
				if err := json.Unmarshal(part["text"], &p.Text); err != nil {
					t.Fatalf("content %d: text %s: %v", i, part["text"], err)
				}
			default:
				for k := range part {
					p.Kind = k
				}
			}
			msg.Parts = append(msg.Parts, p)
		}
		sent.Messages = append(sent.Messages, msg)
	}
	for _, tool := range r.Tools {
		for _, fd := range tool.FunctionDeclarations {
			sent.Tools = append(sent.Tools, wiretest.Tool{Name: fd.Name, Description: fd.Description, Schema: fd.ParametersJsonSchema})
		}
	}
	sent.ToolChoice = wiretest.Field(keys, "toolConfig")
	sent.CallRequired = r.ToolConfig != nil && r.ToolConfig.FunctionCallingConfig.Mode == "ANY"
	sent.Format = wiretest.Field(r.GenerationConfig, "responseJsonSchema")
	return sent
}

// wireRequest is the part of a generateContent request body the tests
// read.
type wireRequest struct {
	Contents []struct {
		Role  string                       `json:"role"`
		Parts []map[string]json.RawMessage `json:"parts"`
	} `json:"contents"`
	SystemInstruction *struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"systemInstruction"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Description          string          `json:"description"`
			ParametersJsonSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	ToolConfig *struct {
		FunctionCallingConfig struct {
			Mode string `json:"mode"`
		} `json:"functionCallingConfig"`
	} `json:"toolConfig"`
	GenerationConfig map[string]json.RawMessage `json:"generationConfig"`
}

func decodeRequest(t *testing.T, body []byte) (wireRequest, map[string]json.RawMessage) {
	t.Helper()
	var r wireRequest
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("request body %s: %v", body, err)
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	return r, raw
}

// checkGolden compares a request body with testdata/name; -update
// rewrites the file.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	wiretest.Golden(t, name, body, *update)
}

// response is a generateContent body whose first candidate has parts
// (JSON objects) and ends with finish, with the usage given.
func response(finish, usage string, parts ...string) string {
	b := `{"candidates":[{"content":{"role":"model","parts":[`
	for i, p := range parts {
		if i > 0 {
			b += ","
		}
		b += p
	}
	b += `]},"finishReason":"` + finish + `","index":0}]`
	if usage != "" {
		b += `,"usageMetadata":` + usage
	}
	return b + `,"modelVersion":"gemini-test","responseId":"r1"}`
}

// text is a text part.
func text(s string) string { b, _ := json.Marshal(s); return `{"text":` + string(b) + `}` }

// answer is a complete reply of text.
func answer(s string) string {
	return response("STOP", `{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15}`, text(s))
}

// funcCall is a functionCall part.
func funcCall(id, name, args string) string {
	p := `{"functionCall":{"name":"` + name + `","args":` + args
	if id != "" {
		p += `,"id":"` + id + `"`
	}
	return p + `}}`
}

// errorBody is the API's error body.
func errorBody(code int, status, msg string, details ...string) string {
	b, _ := json.Marshal(msg)
	d := ""
	if len(details) > 0 {
		d = `,"details":[`
		for i, x := range details {
			if i > 0 {
				d += ","
			}
			d += x
		}
		d += "]"
	}
	return `{"error":{"code":` + itoa(code) + `,"message":` + string(b) + `,"status":"` + status + `"` + d + `}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// retryInfo is the RetryInfo detail RESOURCE_EXHAUSTED carries.
func retryInfo(delay string) string {
	return `{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}`
}
