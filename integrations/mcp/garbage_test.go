package mcp_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	enforcermcp "github.com/enforcer-go/enforcer/integrations/mcp"
)

// rawServer is a server of lines written here, not by the SDK: it answers
// initialize as a server would, tools/list with the tools given (a JSON
// array, verbatim), and each tools/call with the next of calls, verbatim
// but for $ID, which becomes the request's id. It returns a client
// session connected to it, made with opts.
func rawServer(t *testing.T, opts *mcp.ClientOptions, tools string, calls ...string) *mcp.ClientSession {
	t.Helper()
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer toClientW.Close()
		in := bufio.NewScanner(toServerR)
		in.Buffer(nil, 1<<20)
		for in.Scan() {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"params"`
			}
			if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
				continue // a notification
			}
			var line string
			switch req.Method {
			case "initialize":
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":$ID,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"0"}}}`, req.Params.ProtocolVersion)
			case "tools/list":
				line = `{"jsonrpc":"2.0","id":$ID,"result":{"tools":` + tools + `}}`
			case "tools/call":
				if len(calls) == 0 {
					line = `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32603,"message":"no more calls scripted"}}`
				} else {
					line, calls = calls[0], calls[1:]
				}
			default:
				line = `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32601,"message":"method not found"}}`
			}
			if _, err := io.WriteString(toClientW, strings.ReplaceAll(line, "$ID", string(req.ID))+"\n"); err != nil {
				return
			}
		}
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, opts).
		Connect(t.Context(), &mcp.IOTransport{Reader: toClientR, Writer: toServerW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		toServerR.Close()
		<-done
	})
	return cs
}

// callResult is a tools/call response line with result verbatim.
func callResult(result string) string {
	return `{"jsonrpc":"2.0","id":$ID,"result":` + result + `}`
}

const (
	plainTool = `[{"name":"t","inputSchema":{"type":"object"}}]`
	typedTool = `[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]`
)

func TestAServerThatAnswersGarbageGivesToolErrors(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	tests := []struct {
		name  string
		tools string
		line  string
		want  error // what Run's *Error matches besides; nil for any
		rpc   bool  // Run's error holds the server's *jsonrpc.Error
	}{
		{"content that is not a list", plainTool, callResult(`{"content":"nope"}`), nil, false},
		{"a content block of no known type", plainTool, callResult(`{"content":[{"type":"hologram"}]}`), nil, false},
		{"structured content nested deeper than the SDK decodes", plainTool, callResult(`{"content":[],"structuredContent":` + deep + `}`), nil, false},
		{"a JSON-RPC error", plainTool, `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32603,"message":"internal"}}`, nil, true},
		{"a line that is not JSON", plainTool, `}{ not json`, nil, false},
		{"structured content of the wrong type", typedTool, callResult(`{"content":[],"structuredContent":{"n":1.5}}`), enforcermcp.ErrOutputContract, false},
		{"structured content that is null", typedTool, callResult(`{"content":[],"structuredContent":null}`), enforcermcp.ErrOutputContract, false},
		{"an error result with no content", typedTool, callResult(`{"content":[],"isError":true}`), enforcermcp.ErrToolFailed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := rawServer(t, nil, tt.tools, tt.line)
			ts, err := enforcermcp.Tools(t.Context(), cs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ts[0].Run(t.Context(), json.RawMessage(`{}`))
			var e *enforcermcp.Error
			if !errors.As(err, &e) {
				t.Fatalf("Run = %q, %v; want an *Error", got, err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Run error = %v, want one matching %v", err, tt.want)
			}
			if je := new(jsonrpc.Error); tt.rpc && (!errors.As(err, &je) || je.Code != -32603) {
				t.Errorf("Run error = %v, want the server's *jsonrpc.Error", err)
			}
		})
	}
}

func TestAListingOfGarbageIsAnError(t *testing.T) {
	tests := []struct {
		name  string
		tools string
		want  error // besides failing; nil for any error
	}{
		{"tools that are not a list", `"nope"`, nil},
		{"an output schema that is not a schema", `[{"name":"t","inputSchema":{"type":"object"},"outputSchema":5}]`, enforcermcp.ErrSchemaRefused},
		{"an output schema with a dangling reference", `[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"$ref":"#/$defs/gone"}}]`, enforcermcp.ErrSchemaRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := enforcermcp.Tools(t.Context(), rawServer(t, nil, tt.tools))
			if err == nil || len(ts) != 0 {
				t.Fatalf("Tools = %d tools, %v; want an error and no tools", len(ts), err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Tools error = %v, want one matching %v", err, tt.want)
			}
		})
	}
}

func TestAResultThatStillNeedsInputIsAToolError(t *testing.T) {
	// With the SDK's multi round-trip handling switched off, a server's
	// request for input reaches the tool unanswered.
	opts := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
	cs := rawServer(t, opts, typedTool, callResult(`{"resultType":"input_required","inputRequests":{},"requestState":"s1"}`))
	ts, err := enforcermcp.Tools(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ts[0].Run(t.Context(), json.RawMessage(`{}`))
	if !errors.Is(err, enforcermcp.ErrNeedsInput) || errors.Is(err, enforcermcp.ErrOutputContract) {
		t.Errorf("Run = %q, %v; want ErrNeedsInput alone", got, err)
	}
}
