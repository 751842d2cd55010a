package main

import (
	"context"
	"strings"
	"testing"
)

func TestSchemaPrintsWhatEachProviderEnforces(t *testing.T) {
	path := write(t, "schema.json", citySchema)
	tests := []struct {
		provider, want string
	}{
		{"openai", `openai: sent strict
at                keyword   enforced by          note
/                 type      openai and enforcer  -
/                 required  openai and enforcer  -
/properties/city  type      openai and enforcer  -
/properties/days  type      openai and enforcer  -
/properties/days  minimum   openai and enforcer  -
0 of 5 keywords judged by enforcer only
sent as nullable, a null read back as left out: /properties/days
auto mode: native (openai: every keyword of the contract enforced natively)
`},
		{"anthropic", `anthropic: sent strict
at                keyword   enforced by             note
/                 type      anthropic and enforcer  -
/                 required  anthropic and enforcer  -
/properties/city  type      anthropic and enforcer  -
/properties/days  type      anthropic and enforcer  -
/properties/days  minimum   enforcer only           -
1 of 5 keywords judged by enforcer only
auto mode: tool, or native for a model that takes no tools (anthropic: 1 of 5 keywords left out natively (minimum at /properties/days))
`},
		{"gemini", `gemini: sent strict
at                keyword   enforced by          note
/                 type      gemini and enforcer  -
/                 required  gemini and enforcer  -
/properties/city  type      gemini and enforcer  -
/properties/days  type      gemini and enforcer  -
/properties/days  minimum   gemini and enforcer  -
0 of 5 keywords judged by enforcer only
auto mode: native (gemini: every keyword of the contract enforced natively)
`},
		{"deepseek", `deepseek: sent none (DeepSeek takes response_format json_object only, no json_schema)
at                keyword   enforced by    note
/                 type      enforcer only  -
/                 required  enforcer only  -
/properties/city  type      enforcer only  -
/properties/days  type      enforcer only  -
/properties/days  minimum   enforcer only  -
5 of 5 keywords judged by enforcer only
auto mode: tool, or prompted for a model that takes no tools (deepseek: the contract is not sent strict (DeepSeek takes response_format json_object only, no json_schema))
`},
	}
	for _, tt := range tests {
		t.Run("for "+tt.provider, func(t *testing.T) {
			code, got, stderr := runCmd(context.Background(), "", "schema", "-provider", tt.provider, path)
			if code != exitOK || stderr != "" {
				t.Fatalf("status %d, stderr %q; want 0 and nothing", code, stderr)
			}
			if got != tt.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
	t.Run("a contract of one keyword counts it in the singular", func(t *testing.T) {
		_, got, _ := runCmd(context.Background(), "", "schema", "-provider", "openai", write(t, "string.json", `{"type":"string"}`))
		if want := "1 of 1 keyword judged by enforcer only\n"; !strings.Contains(got, want) {
			t.Errorf("stdout:\n%s\nwant it to say %q", got, want)
		}
		if want := "auto mode: prompted (openai: the contract is not sent strict (the root: the root is not an object schema); the contract's root is not an object, as a tool's parameters must be)\n"; !strings.HasSuffix(got, want) {
			t.Errorf("stdout:\n%s\nwant it to end with %q", got, want)
		}
	})
	t.Run("a contract the provider cannot express says why it is not sent", func(t *testing.T) {
		mapPath := write(t, "map.json", `{"type":"object","additionalProperties":{"type":"string"}}`)
		_, got, _ := runCmd(context.Background(), "", "schema", "-provider", "anthropic", mapPath)
		if !strings.HasPrefix(got, "anthropic: sent none (the root: additionalProperties as a schema (a map))\n") {
			t.Errorf("stdout:\n%s\nwant it to open with the mode and the reason", got)
		}
	})
}

func TestSchemaRefusesBadArgumentsAndFiles(t *testing.T) {
	good := write(t, "schema.json", citySchema)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown provider", []string{"-provider", "nope", good}, `unknown profile "nope"`},
		{"no file", nil, "want one FILE, got 0 arguments"},
		{"a missing file", []string{"/nonexistent/schema.json"}, "no such file"},
		{"a schema the library refuses", []string{write(t, "bad.json", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$dynamicRef": "#x"}`)}, "$dynamicRef"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is one line on stderr", func(t *testing.T) {
			code, stdout, stderr := runCmd(context.Background(), "", append([]string{"schema"}, tt.args...)...)
			wantOneLineError(t, code, stdout, stderr, tt.want)
		})
	}
}
