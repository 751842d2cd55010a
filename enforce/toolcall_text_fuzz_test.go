package enforce_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// FuzzReadTextCalls holds the text-call reader to its rule: it never
// crashes; content holding none of the forms' markers or a name member
// is no reading; and a call read back names a declared tool, its
// arguments JSON exactly as written in the content.
func FuzzReadTextCalls(f *testing.F) {
	for _, seed := range []string{
		"<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
		`[TOOL_CALLS][{"name":"lookup","arguments":{"city":"Paris"},"id":"x1"},{"name":"clock","arguments":{}}]`,
		`<|python_tag|>{"name": "lookup", "parameters": {"city": "Paris"}}`,
		`{"name":"lookup","arguments":"{\"city\":\"Paris\"}"}`,
		`Sure. <tool_call>{"name":"lookup","arguments":{}}</tool_call>`,
		`<tool_call>{"name":"lookup","arguments":{"city":"Pa`, `{"city":"Paris"}`, `sunny`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		calls, ok := enforce.ReadTextCalls(content, declared)
		if !ok {
			if calls != nil {
				t.Fatalf("%q: no reading, yet calls %+v", content, calls)
			}
			return
		}
		if len(calls) == 0 || !strings.Contains(content, `"name"`) {
			t.Fatalf("%q read as calls %+v without a name member", content, calls)
		}
		for _, c := range calls {
			if !declared(c.Tool) || !json.Valid([]byte(c.Arguments)) || !strings.Contains(content, c.Arguments) {
				t.Fatalf("%q: call %+v names no declared tool, or its arguments are not JSON as written", content, c)
			}
		}
	})
}
