package wireschema

import (
	"encoding/json"
	"testing"
)

func TestInlineRoot(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		wantName string
		want     string
	}{
		{
			name:     "a plain object schema is sent as is",
			schema:   `{"type":"object","properties":{"n":{"type":"integer","maximum":12345678901234567890}}}`,
			wantName: "",
			want:     `{"properties":{"n":{"type":"integer","maximum":12345678901234567890}},"type":"object"}`,
		},
		{
			name:     "a root $ref is inlined and its definition dropped",
			schema:   `{"$id":"https://x/w","$ref":"#/$defs/W","$defs":{"W":{"type":"object"}}}`,
			wantName: "W",
			want:     `{"type":"object"}`,
		},
		{
			name:     "only the inlined definition leaves $defs",
			schema:   `{"$ref":"#/$defs/W","$defs":{"S":{"type":"integer"},"W":{"type":"object","properties":{"s":{"$ref":"#/$defs/S"}}}}}`,
			wantName: "W",
			want:     `{"$defs":{"S":{"type":"integer"}},"properties":{"s":{"$ref":"#/$defs/S"}},"type":"object"}`,
		},
		{
			name:     "definitions still referred to stay",
			schema:   `{"$ref":"#/$defs/W","$defs":{"S":{"type":"integer"},"W":{"type":"object","properties":{"s":{"$ref":"#/$defs/S"},"w":{"$ref":"#/$defs/W"}}}}}`,
			wantName: "W",
			want:     `{"$defs":{"S":{"type":"integer"},"W":{"type":"object","properties":{"s":{"$ref":"#/$defs/S"},"w":{"$ref":"#/$defs/W"}}}},"properties":{"s":{"$ref":"#/$defs/S"},"w":{"$ref":"#/$defs/W"}},"type":"object"}`,
		},
		{
			name:     "an inlined definition gives its name",
			schema:   `{"$ref":"#/$defs/a.b","$defs":{"a.b":{"type":"object"}}}`,
			wantName: "a.b",
			want:     `{"type":"object"}`,
		},
		{
			name:     "a $ref to a missing definition is sent as is",
			schema:   `{"$ref":"#/$defs/Nope","$defs":{}}`,
			wantName: "",
			want:     `{"$defs":{},"$ref":"#/$defs/Nope"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, obj, err := InlineRoot(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := name, tt.wantName; got != want {
				t.Errorf("name = %q, want %q", got, want)
			}
			if got, want := string(b), tt.want; got != want {
				t.Errorf("schema = %s, want %s", got, want)
			}
		})
	}
}

func TestInlineRootRefusesWhatIsNotAnObject(t *testing.T) {
	for _, s := range []string{`null`, `[1]`, `"x"`, `{`} {
		if _, _, err := InlineRoot(json.RawMessage(s)); err == nil {
			t.Errorf("InlineRoot(%s): err = nil, want an error", s)
		}
	}
}
