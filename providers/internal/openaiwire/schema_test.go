package openaiwire

import (
	"encoding/json"
	"testing"
)

// TestInlineRootNames checks the naming OpenAI needs on top of the shared
// inlining (tested in internal/wireschema).
func TestInlineRootNames(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"a plain schema is named output", `{"type":"object"}`, "output"},
		{"an inlined definition gives its name", `{"$ref":"#/$defs/Weather","$defs":{"Weather":{"type":"object"}}}`, "Weather"},
		{"a name OpenAI would refuse falls back to output", `{"$ref":"#/$defs/a.b","$defs":{"a.b":{"type":"object"}}}`, "output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, obj, err := InlineRoot(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("name = %q, want %q", got, tt.want)
			}
			if raw, _ := obj["type"].(json.RawMessage); string(raw) != `"object"` {
				t.Errorf("schema = %v, want an object root", obj)
			}
		})
	}
	if _, _, err := InlineRoot(json.RawMessage(`[1]`)); err == nil {
		t.Error("InlineRoot([1]): err = nil, want an error")
	}
}
