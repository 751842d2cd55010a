package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

var update = flag.Bool("update", false, "rewrite the golden request bodies in testdata/")

// reply is one scripted HTTP response.
type reply struct {
	status int
	header map[string]string
	body   string
}

// okReply is a 200 with a chat completion body.
func okReply(body string) reply { return reply{status: 200, body: body} }

// fakeServer speaks the chat completions wire format from a script and
// keeps every request body it received.
type fakeServer struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	script []reply
	bodies [][]byte
	paths  []string
}

func newFakeServer(t *testing.T, script ...reply) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.script) > 0 {
			t.Errorf("%d scripted replies left unused", len(f.script))
		}
	})
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.paths = append(f.paths, r.Method+" "+r.URL.Path)
	if len(f.script) == 0 {
		f.mu.Unlock()
		f.t.Errorf("unscripted request %d: %s", len(f.bodies), body)
		http.Error(w, "unscripted", http.StatusTeapot)
		return
	}
	rep := f.script[0]
	f.script = f.script[1:]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	io.WriteString(w, rep.body)
}

// client is configured as a user would, against the fake server.
func (f *fakeServer) client(opts ...option.RequestOption) sdk.Client {
	return sdk.NewClient(append([]option.RequestOption{
		option.WithBaseURL(f.srv.URL + "/v1/"),
		option.WithAPIKey("test-key"),
	}, opts...)...)
}

// requests returns the request bodies received so far.
func (f *fakeServer) requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

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

// checkGolden compares a request body with testdata/name, both indented
// the same way; -update rewrites the file.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	var got bytes.Buffer
	if err := json.Indent(&got, body, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("request body differs from %s:\ngot:\n%s\nwant:\n%s", path, got.Bytes(), want)
	}
}
