package mcp

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzResult feeds result any tools/call result a server could send, as
// the SDK decodes it, judged against a declared schema and without one:
// the model is shown text or gets an *Error, never a crash, and what a
// tool with a schema shows the model keeps that schema.
func FuzzResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"city":"Paris","tempC":21}}`))
	f.Add([]byte(`{"content":[],"structuredContent":{"city":"Paris","tempC":"21"}}`))
	f.Add([]byte(`{"content":[{"type":"image","mimeType":"image/png","data":"cG5nIQ=="},{"type":"resource","resource":{"uri":"file:///a","blob":"AA=="}}]}`))
	f.Add([]byte(`{"content":[{"type":"text","text":"boom"}],"isError":true}`))
	f.Add([]byte(`{"content":[],"resultType":"input_required","inputRequests":{}}`))
	declared := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"city": map[string]any{"type": "string"}, "tempC": map[string]any{"type": "number"}},
		"required":             []any{"city", "tempC"},
		"additionalProperties": false,
	}
	schema, err := compileDeclared(declared)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var res mcp.CallToolResult
		if json.Unmarshal(data, &res) != nil {
			return
		}
		for _, withSchema := range []bool{false, true} {
			s := schema
			if !withSchema {
				s = nil
			}
			got, err := result("t", s, &res, nil)
			var e *Error
			switch {
			case err != nil && !errors.As(err, &e):
				t.Fatalf("result error %v (%T): want an *Error", err, err)
			case err != nil && got != "":
				t.Fatalf("result = %q beside an error", got)
			case err == nil && s != nil:
				if cerr := s.Check(got); cerr != nil {
					t.Fatalf("shown %q, which breaks the schema: %v", got, cerr)
				}
			}
			if err != nil {
				_ = err.Error() // renders without a crash
			}
		}
	})
}
