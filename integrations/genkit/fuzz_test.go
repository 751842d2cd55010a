package genkit

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/firebase/genkit/go/ai"
)

// The format reads what a model streams and answers: whatever arrives,
// in whatever pieces, ParseChunk gives nothing or a JSON value, and
// ParseOutput decodes exactly what encoding/json does.
func FuzzFormat(f *testing.F) {
	f.Add(`{"city":"Paris","tempC":21}`, uint8(3))
	f.Add(`[{"city":"Par`, uint8(1))
	f.Add("```json\n{\"city\":\"Paris\"}\n```", uint8(5))
	f.Add(`{"city":"\ud800","tempC":1e400}`, uint8(7))
	f.Add("\xff{", uint8(0))
	f.Fuzz(func(t *testing.T, text string, step uint8) {
		h, err := formatter{}.Handler(map[string]any{"type": "object", "properties": map[string]any{
			"city": map[string]any{"type": "string"}, "tempC": map[string]any{"type": "integer"}}})
		if err != nil {
			t.Fatal(err)
		}
		sh := h.(ai.StreamingFormatHandler)
		n := int(step%16) + 1
		for i := 0; i < len(text); i += n {
			v, err := sh.ParseChunk(&ai.ModelResponseChunk{Role: ai.RoleModel, Content: []*ai.Part{ai.NewTextPart(text[i:min(i+n, len(text))])}})
			if err != nil {
				t.Fatalf("ParseChunk: %v", err)
			}
			if v != nil {
				if _, err := json.Marshal(v); err != nil {
					t.Fatalf("ParseChunk gave %#v, not a JSON value: %v", v, err)
				}
			}
		}
		got, gotErr := sh.ParseOutput(ai.NewModelTextMessage(text))
		var want any
		wantErr := json.Unmarshal([]byte(text), &want)
		if (gotErr == nil) != (wantErr == nil) || gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseOutput = %#v, %v; encoding/json: %#v, %v", got, gotErr, want, wantErr)
		}
	})
}
